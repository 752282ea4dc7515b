// Sello portal: copy buttons. A <button data-copy="ID" hidden> copies the
// text of the element ID to the clipboard; its data-copied attribute is
// what it says once done (from the page, so that every word stays in the
// catalogue). The buttons stay hidden where this script does not run or
// the browser cannot copy: the text itself is selectable.
(function () {
  "use strict";
  if (!navigator.clipboard || !window.isSecureContext) {
    return;
  }
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        var done = button.getAttribute("data-copied");
        if (done) {
          button.textContent = done;
        }
      });
    });
  });
})();
