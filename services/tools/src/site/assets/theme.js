/*
 * The light/dark switch. The page follows the system's colour scheme until the visitor picks one here;
 * the pick is kept in localStorage and put on <html data-theme> by the inline script in <head> on the
 * next page, before its first paint. Without JavaScript the button stays hidden and the system decides.
 */
(function () {
  'use strict';
  var KEY = 'theme';
  var root = document.documentElement;
  var button = document.querySelector('[data-theme-toggle]');
  if (!button) return;
  var system = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

  function isDark() {
    var chosen = root.getAttribute('data-theme');
    if (chosen === 'dark' || chosen === 'light') return chosen === 'dark';
    return Boolean(system && system.matches);
  }
  function show() {
    button.setAttribute('aria-pressed', isDark() ? 'true' : 'false');
  }

  button.addEventListener('click', function () {
    var next = isDark() ? 'light' : 'dark';
    root.setAttribute('data-theme', next);
    try {
      localStorage.setItem(KEY, next);
    } catch (error) {
      // Storage refused (private mode, a full quota): the pick holds for this page only.
    }
    show();
  });
  if (system && system.addEventListener) system.addEventListener('change', show);
  show();
  button.hidden = false;
})();
