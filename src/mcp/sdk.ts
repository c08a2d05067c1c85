// The MCP SDK and zod, behind one module: the build maps this import to dist/mcp-sdk.cjs, a
// file of its own that only `checkpoint mcp` loads, so no other command pays for it.
export { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { JSONRPCMessageSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
export { z } from 'zod';
