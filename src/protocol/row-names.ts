// Where a progress_table row written without id and label says what it is ({"name": "Auth"}),
// in order: the readers name such a row by it (repairable.ts), and the merge knows it by it.
export const ROW_NAME_KEYS = ['name', 'title', 'task', 'step', 'phase', 'description'] as const;
