// Sello portal: copy buttons of secrets shown once (an API key, a webhook
// secret). A <button data-copy="ID" hidden> copies the text of the
// element ID. Its data-copied (and data-failed) attribute is what it says
// once done (from the page, so that every word stays in the catalogue):
// in the element its data-status names, or as its own label without one.
// The buttons are hidden in the HTML and shown here, so that a browser
// without JavaScript shows the text alone, to select and copy by hand. No
// inline script: the Content-Security-Policy allows the portal's scripts
// only.
(function () {
  "use strict";

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  function say(button, ok) {
    var text = button.getAttribute(ok ? "data-copied" : "data-failed");
    if (!text) {
      return;
    }
    var status = document.getElementById(button.getAttribute("data-status"));
    if (status) {
      status.textContent = text;
    } else {
      button.textContent = text;
    }
  }

  function copy(button, source) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(source.textContent.trim()).then(
        function () { say(button, true); },
        function () { selectText(source); say(button, false); });
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
    say(button, ok);
  }

  function setUp() {
    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) {
        return;
      }
      button.hidden = false;
      button.addEventListener("click", function () { copy(button, source); });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
