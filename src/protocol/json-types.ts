// Any JSON value: what a checkpoint holds where the schema leaves the shape open.
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
