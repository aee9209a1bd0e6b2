/** This SDK's version (package.json `version`; a unit test keeps them equal). */
export const SDK_VERSION = '0.16.0';
