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
  // Results come after the typing pauses (DELAY_MS), never while an input method is composing (its
  // half-typed pinyin is not a query). History: the first results of a burst of typing push one entry, later
  // ones in the same burst replace it; a query left showing SETTLE_MS, or a box left, is settled, so
  // Back walks the settled queries and then the page the visitor came from.
  var form = document.querySelector('form[data-live-search]');
  if (!form || !window.fetch || !window.DOMParser || !window.AbortController || !window.history || !history.pushState) return;
  var input = form.querySelector('input[name="q"]');
  var status = document.getElementById('live-status');
  var main = document.getElementById('main');
  if (!input || !main) return;

  var DELAY_MS = 250;
  var SETTLE_MS = 1000;
  var timer = 0;
  var settleTimer = 0;
  var composing = false;
  var inFlight = null;
  var inBurst = false; // the current history entry was pushed by this burst of typing and may be replaced
  // Every history entry of this document, by the id in its state: what it shows, for Back and Forward.
  var entries = {};
  var idPrefix = String(Date.now()) + Math.random().toString(36).slice(2) + ':';
  var nextId = 0;
  var currentId = remember({ main: main, url: location.href, title: document.title, switchHrefs: switchHrefs(document), keyword: input.value.trim() });
  history.replaceState({ liveSearch: currentId }, '', location.href);
  var origin = entries[currentId]; // the page as loaded: shown again (with an empty box) when the box is cleared
  var wanted = origin.keyword; // the keyword shown or being fetched

  function remember(entry) {
    var id = idPrefix + nextId++;
    entries[id] = entry;
    return id;
  }

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

  function show(entry) {
    if (entry.main !== main) swapMain(entry.main);
    setSwitchHrefs(entry.switchHrefs);
    document.title = entry.title;
  }

  function stopPending() {
    window.clearTimeout(timer);
    timer = 0;
    if (inFlight) inFlight.abort();
    inFlight = null;
    main.removeAttribute('aria-busy');
  }

  function settle() {
    window.clearTimeout(settleTimer);
    inBurst = false;
  }

  // Shows a settled answer: a new history entry for the first of a burst, the same entry for the rest.
  function commit(entry) {
    if (inBurst) {
      entries[currentId] = entry;
      history.replaceState({ liveSearch: currentId }, '', entry.url);
    } else {
      currentId = remember(entry);
      history.pushState({ liveSearch: currentId }, '', entry.url);
      inBurst = true;
    }
    show(entry);
    window.clearTimeout(settleTimer);
    settleTimer = window.setTimeout(settle, SETTLE_MS);
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
        // An answer overtaken by a newer query (or by composing) is dropped even if the abort came too late.
        if (controller !== inFlight || composing) return;
        var page = new DOMParser().parseFromString(text, 'text/html');
        var fetched = page.getElementById('main');
        if (!fetched) throw new Error('no <main> in the search page');
        var next = document.importNode(fetched, true);
        commit({ main: next, url: url, title: page.title, switchHrefs: switchHrefs(page), keyword: keyword });
        settleIcons(next);
        var summary = next.querySelector('[data-search-summary]');
        announce(summary ? summary.textContent : '');
      })
      .catch(function (error) {
        // Aborted by a newer query, or the network failed: the form still submits normally.
        if (error && error.name === 'AbortError') return;
        if (controller === inFlight) wanted = null;
      })
      .then(function () {
        if (controller === inFlight) {
          inFlight = null;
          main.removeAttribute('aria-busy');
        }
      });
  }

  function run() {
    timer = 0;
    if (composing) return;
    var keyword = input.value.trim();
    if (keyword === wanted) return;
    wanted = keyword;
    if (keyword !== '') return search(keyword);
    stopPending();
    commit({ main: origin.main, url: origin.url, title: origin.title, switchHrefs: origin.switchHrefs, keyword: '' });
    announce('');
  }

  function schedule() {
    window.clearTimeout(timer);
    // Typing again keeps the burst open: only a query left showing is settled.
    window.clearTimeout(settleTimer);
    timer = window.setTimeout(run, DELAY_MS);
  }

  input.addEventListener('compositionstart', function () {
    composing = true;
    // Whatever was pending is for the text before the composition; it is asked again when it ends.
    stopPending();
    wanted = entries[currentId].keyword;
  });
  input.addEventListener('compositionend', function () {
    composing = false;
    schedule();
  });
  input.addEventListener('input', function (event) {
    if (composing || event.isComposing) return;
    schedule();
  });
  // Leaving the box settles what it shows (a query still on its way settles with its answer's entry).
  input.addEventListener('blur', function () {
    if (!timer && !inFlight) settle();
  });

  window.addEventListener('popstate', function (event) {
    var id = event.state && event.state.liveSearch;
    if (!id) return; // an entry of a fragment link (#main): the page shown stays
    var entry = entries[id];
    if (!entry) return location.reload(); // an entry of an earlier document of this tab
    stopPending();
    settle();
    currentId = id;
    show(entry);
    input.value = entry.keyword;
    wanted = entry.keyword;
  });
})();
