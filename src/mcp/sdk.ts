// The parts of the MCP SDK and zod the server uses, in one place. They are bundled into
// dist/mcp.cjs with the server, a file only `checkpoint mcp` loads.
export { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { CancelledNotificationSchema, ClientRequestSchema, JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION, ReadResourceRequestSchema, RootsListChangedNotificationSchema, SubscribeRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
export { z } from 'zod';
