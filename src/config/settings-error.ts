/** A setting that cannot be used; the message names the variable, never a secret's value. */
export class SettingsError extends Error {}
