// The event on window that tells every figure to re-read the page's settings (language, theme). Its own module so
// that the page's entry can send it without loading the figures' code.
export const SETTINGS_EVENT = 'ls-settings';
