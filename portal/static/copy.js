// Sello portal: the copy buttons of secrets shown once (an API key, a
// webhook's secret). A button[data-copy] copies the text of the element
// whose id it names, and says so (data-copied, data-failed: the page's
// words, from the catalogue) in the element its data-status names, or on
// the button itself when it names none. The buttons are hidden in
// the HTML and shown here, so that a browser without JavaScript shows the
// text alone, to select and copy by hand. No inline script: the page's
// Content-Security-Policy allows scripts from the portal only.
(function () {
  "use strict";

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  function copied(button, ok) {
    var text = button.getAttribute(ok ? "data-copied" : "data-failed");
    var status = document.getElementById(button.getAttribute("data-status"));
    if (status) {
      status.textContent = text;
    } else if (text) {
      button.textContent = text;
    }
  }

  function copy(button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) {
      return;
    }
    var text = source.textContent.trim();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { copied(button, true); },
        function () { selectText(source); copied(button, false); });
      return;
    }
    // Without the asynchronous clipboard (plain HTTP off loopback), the
    // old way: select the text and ask the browser to copy it.
    selectText(source);
    var ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (e) {
      ok = false;
    }
    copied(button, ok);
  }

  function setUp() {
    var buttons = document.querySelectorAll("button[data-copy]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].hidden = false;
      buttons[i].addEventListener("click", function (ev) { copy(ev.currentTarget); });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
