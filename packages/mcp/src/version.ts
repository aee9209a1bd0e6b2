/** This package's version (package.json's; a unit test keeps them equal). */
export const MCP_SERVER_VERSION = '0.16.0';
