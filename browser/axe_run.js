// Runs axe-core (already injected) on the document and returns the results as JSON text shaped
// like sitescan's `AxeResults`.
if (!window.axe) throw new Error('axe-core is not loaded');
const MAX_NODES = 50;
const target = (t) => (Array.isArray(t) ? t.map((x) => (Array.isArray(x) ? x.join(' >>> ') : String(x))).join(' >>> ') : String(t));
// axe would serialize the markup of every element any rule looks at (the whole document for
// the page-level rules); only the reported ones need it, so it is read after the run from the
// reported element itself (`elementRef`), by the same function axe uses.
const source = (n) => {
  try {
    return n.element ? window.axe.utils.getElementSource(n.element) : '';
  } catch (e) {
    return '';
  }
};
const rule = (x) => ({
  id: x.id,
  impact: x.impact || null,
  tags: x.tags || [],
  help: x.help || '',
  description: x.description || '',
  help_url: x.helpUrl || '',
  nodes: (x.nodes || []).slice(0, MAX_NODES).map((n) => ({
    target: target(n.target),
    html: source(n).slice(0, 300),
    failure_summary: n.failureSummary || null,
    impact: n.impact || null,
  })),
});
window.axe.configure({ noHtml: true });
// The AAA contrast rule's verdicts come from the AA rule's run (axe_contrast.js) unless this axe
// is not shaped for it, in which case the rule runs as axe defines it.
const contrast = installEnhancedContrast(window.axe);
let r;
try {
  r = await window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    // Beyond the tags (axe_catalogue::AXE_EXTRA_RULES): AAA contrast and refresh, reported at low
    // severity, and the orientation lock, which axe tags experimental.
    rules: {
      'color-contrast-enhanced': { enabled: !contrast },
      'meta-refresh-no-exceptions': { enabled: true },
      'css-orientation-lock': { enabled: true },
    },
    resultTypes: ['violations', 'incomplete'],
    iframes: false,
    elementRef: true,
  });
} finally {
  if (contrast) contrast.restore();
}
return JSON.stringify({ version: window.axe.version, violations: r.violations.map(rule), incomplete: r.incomplete.map(rule), error: null });
