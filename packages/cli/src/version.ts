/** The CLI's version, as package.json has it (a unit test keeps the two equal). */
export const CLI_VERSION = '0.16.0';
