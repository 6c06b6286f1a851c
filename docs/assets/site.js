// The site's own script: mathematics rendered by the KaTeX the site serves (assets/katex, no network), and each table
// cell labelled with its column's heading, so that a table stacked on a narrow screen (assets/site.css) still says
// what each value is. A formula KaTeX cannot read is reported on the console as an error (the browser test fails on it)
// and left as its source.
(function () {
  function renderMath(root) {
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      if (el.dataset.rendered) return;
      var source = el.textContent.trim();
      var display = el.tagName === "DIV";
      var tex = source.replace(/^\\[\(\[]/, "").replace(/\\[\)\]]$/, "");
      try {
        katex.render(tex, el, { displayMode: display, throwOnError: true, strict: "ignore", output: "html" });
        el.dataset.rendered = "1";
      } catch (error) {
        console.error("KaTeX could not render " + JSON.stringify(tex) + ": " + error.message);
      }
    });
  }

  function labelCells(root) {
    root.querySelectorAll("article table").forEach(function (table) {
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.trim();
      });
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (td, i) {
          if (!td.hasAttribute("data-label") && heads[i]) td.setAttribute("data-label", heads[i]);
        });
      });
    });
  }

  function ready() {
    if (typeof katex !== "undefined") renderMath(document);
    labelCells(document);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
