/*
 * Progressive enhancement for the tool directory's pages. Everything works without this file: the search
 * box is a plain GET form, links are links, icons degrade to their letter avatar.
 *  - Tool icons: a loaded icon gets a white backing; a failed one is removed, leaving the letter avatar.
 *  - Search as you type: the search page's own HTML (the same URL the form would load) is fetched and its
 *    <main> swapped in, so results render exactly as without JavaScript, from the same server code.
 */
(function () {
  'use strict';

  // ---- icons ----
  function iconLoaded(img) {
    var holder = img.parentNode;
    if (holder && holder.classList) holder.classList.add('tool-icon--loaded');
  }
  function iconFailed(img) {
    if (img.parentNode) img.parentNode.removeChild(img);
  }
  function isToolIcon(target) {
    return target && target.tagName === 'IMG' && target.parentNode && target.parentNode.classList && target.parentNode.classList.contains('tool-icon');
  }
  // load and error do not bubble, but they can be caught on the way down.
  document.addEventListener('load', function (event) { if (isToolIcon(event.target)) iconLoaded(event.target); }, true);
  document.addEventListener('error', function (event) { if (isToolIcon(event.target)) iconFailed(event.target); }, true);
  function settleIcons(root) {
    var images = root.querySelectorAll('.tool-icon img');
    for (var i = 0; i < images.length; i++) {
      var img = images[i];
      if (!img.complete) continue;
      if (img.naturalWidth > 0) iconLoaded(img);
      // A lazy icon not yet requested is "complete" too, but has no currentSrc: only a tried one failed.
      else if (img.currentSrc) iconFailed(img);
    }
  }
  // This script is deferred: icons that finished before it ran have already fired their events.
  settleIcons(document);

  // ---- search as you type ----
  var form = document.querySelector('form[data-live-search]');
  if (!form || !window.fetch || !window.DOMParser || !window.AbortController || !window.history || !history.replaceState) return;
  var input = form.querySelector('input[name="q"]');
  var status = document.getElementById('live-status');
  var main = document.getElementById('main');
  if (!input || !main) return;

  var DELAY_MS = 180;
  var original = null; // the page's own <main>, URL, title and language links, put back when the box is cleared
  var timer = 0;
  var inFlight = null;
  var lastKeyword = input.value.trim();

  function swapMain(next) {
    main.replaceWith(next);
    main = next;
  }

  // The language switch outside <main> follows the page shown: its hrefs are taken from that page.
  function switchHrefs(root) {
    var links = root.querySelectorAll('a[data-switch-lang]');
    var hrefs = [];
    for (var i = 0; i < links.length; i++) hrefs.push(links[i].getAttribute('href'));
    return hrefs;
  }
  function setSwitchHrefs(hrefs) {
    var links = document.querySelectorAll('a[data-switch-lang]');
    for (var i = 0; i < links.length && i < hrefs.length; i++) links[i].setAttribute('href', hrefs[i]);
  }

  function announce(text) {
    if (!status) return;
    status.textContent = '';
    // A change of text is what screen readers announce; set it on the next frame so a repeat is heard too.
    window.requestAnimationFrame(function () { status.textContent = text; });
  }

  function restore() {
    if (inFlight) inFlight.abort();
    if (!original) return;
    swapMain(original.main);
    setSwitchHrefs(original.switchHrefs);
    history.replaceState(history.state, '', original.url);
    document.title = original.title;
    original = null;
    announce('');
  }

  function search(keyword) {
    var url = form.getAttribute('action') + '?q=' + encodeURIComponent(keyword);
    if (inFlight) inFlight.abort();
    var controller = new AbortController();
    inFlight = controller;
    main.setAttribute('aria-busy', 'true');
    fetch(url, { signal: controller.signal, credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) { return response.text(); })
      .then(function (text) {
        if (controller !== inFlight) return;
        var page = new DOMParser().parseFromString(text, 'text/html');
        var fetched = page.getElementById('main');
        if (!fetched) throw new Error('no <main> in the search page');
        if (!original) original = { main: main, url: location.href, title: document.title, switchHrefs: switchHrefs(document) };
        var next = document.importNode(fetched, true);
        swapMain(next);
        setSwitchHrefs(switchHrefs(page));
        settleIcons(next);
        history.replaceState(history.state, '', url);
        document.title = page.title;
        var summary = next.querySelector('[data-search-summary]');
        announce(summary ? summary.textContent : '');
      })
      .catch(function (error) {
        // Aborted by a newer keystroke, or the network failed: the form still submits normally.
        if (error && error.name === 'AbortError') return;
      })
      .then(function () {
        if (controller === inFlight) {
          inFlight = null;
          main.removeAttribute('aria-busy');
        }
      });
  }

  input.addEventListener('input', function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      var keyword = input.value.trim();
      if (keyword === lastKeyword) return;
      lastKeyword = keyword;
      if (keyword === '') restore();
      else search(keyword);
    }, DELAY_MS);
  });
})();
