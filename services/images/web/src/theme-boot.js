// Runs before the first paint (a blocking classic script in <head>, see vite.config.mts): applies the
// theme this browser chose with the toggle, so a reload never flashes the other one. With no choice
// kept, the stylesheet follows the system (prefers-color-scheme). The key is THEME_KEY of theme.ts.
try {
  var theme = window.localStorage.getItem('imagehost.theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.setAttribute('data-theme', theme);
} catch (error) {
  // storage refused: the system's theme
}
