// A classic script (module scripts do not run from file://): opened from disk, the page says why its figures
// stay blank instead of showing nothing. Served over HTTP it does nothing.
(function () {
  if (location.protocol !== 'file:') return;
  var text =
    'This page must be served over HTTP: opened from a file, the browser runs no module script and loads no ' +
    'WebAssembly, so the figures stay blank. Run ./run.sh (the agent serves the page and prints its URL), or ' +
    'serve web/dist with any static server, e.g. python3 -m http.server -d web/dist 8000, then open http://127.0.0.1:8000/.';
  function show() {
    var note = document.createElement('p');
    note.className = 'not-served';
    note.setAttribute('role', 'alert');
    note.textContent = text;
    var main = document.getElementById('main') || document.body;
    main.insertBefore(note, main.firstChild);
    var figures = document.querySelectorAll('main [id]');
    for (var i = 0; i < figures.length; i++) {
      var el = figures[i];
      if (el.localName.indexOf('ls-') !== 0) continue;
      var p = document.createElement('p');
      p.className = 'not-served';
      p.textContent = 'This figure needs the page served over HTTP (see the note at the top).';
      el.appendChild(p);
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show);
  else show();
})();
