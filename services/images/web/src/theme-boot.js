// Runs before the first paint (a blocking classic script in <head>, see vite.config.mts): sets the theme
// on <html data-theme>, the toggle's choice kept in this browser, else the system's (prefers-color-scheme),
// so a reload never flashes the other one. The stylesheet reads only data-theme; theme.ts keeps it
// current afterwards. The key is THEME_KEY of theme.ts.
var theme = null;
try {
  theme = window.localStorage.getItem('imagehost.theme');
} catch (error) {
  // storage refused: the system's theme
}
if (theme !== 'light' && theme !== 'dark') theme = window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
document.documentElement.setAttribute('data-theme', theme);
