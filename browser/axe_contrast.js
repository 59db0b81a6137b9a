// axe's AAA contrast rule (`color-contrast-enhanced`) judged from the AA rule's run
// (`color-contrast`) instead of a second pass over every element of the page.
//
// The two rules match the same elements (`color-contrast-matches`, `*`) and run the same check
// function with different options: the expected ratios (AAA 7:1 and 4.5:1 with minimum
// thresholds 4.5 and 3 below which the AA rule is the one to fail), and how thick a text shadow
// may be to count as an outline. The second pass costs about a seventh of a scan's CPU, and most
// of it is not the colour computation (axe caches the background per element) but matching and
// bookkeeping over every element again.
//
// `installEnhancedContrast(axe)` wraps the AA check's evaluate for one `axe.run`. For each
// element it evaluates AA as before and settles AAA from what AA found where that is exact:
// - hidden, emoji-only and pseudo-content verdicts do not depend on the ratios;
// - an unknown colour fails the AAA rule's minimum threshold, which passes it;
// - a known ratio is reported truncated to 2 decimals, so comparing it with thresholds of at
//   most 2 decimals gives the exact verdict except when it equals one;
// - a failure is worded from the same data, left for review as axe leaves single characters
//   and empty fields, with the background's elements (cached by axe per element) as related.
// Everything else runs axe's own check with the AAA options on the element: text with a shadow
// (the outline allowance differs, and the AAA pass runs first there, as in axe's rule order, so
// the background axe caches is the one it would have cached) and a ratio equal to a threshold.
// The AAA results are then added to the run's raw results where axe's own rule would have put
// them, so axe's reporter gives them their messages, impact, selectors and summaries as usual.
//
// Returns null (nothing installed: the AAA rule then runs as axe defines it) when this axe is not
// shaped as expected.
const installEnhancedContrast = (axe) => {
  const audit = axe && axe._audit;
  const checks = audit && audit.checks;
  const aa = checks && checks['color-contrast'];
  const aaa = checks && checks['color-contrast-enhanced'];
  const rules = audit && audit.rules;
  if (!aa || !aaa || !Array.isArray(rules) || typeof aa.evaluate !== 'function' || typeof aaa.getOptions !== 'function') return null;
  if (typeof audit.after !== 'function' || !axe.utils || typeof axe.utils.checkHelper !== 'function') return null;
  if (!rules.some((r) => r.id === 'color-contrast') || !rules.some((r) => r.id === 'color-contrast-enhanced')) return null;
  const aaaOptions = aaa.getOptions();
  const ratios = aaaOptions && aaaOptions.contrastRatio;
  if (!ratios || !ratios.normal || !ratios.large) return null;
  const evaluate = aa.evaluate;
  const ownEvaluate = Object.prototype.hasOwnProperty.call(aa, 'evaluate');
  const ownAfter = Object.prototype.hasOwnProperty.call(audit, 'after');
  const after = audit.after;
  // AAA check results by element.
  const settled = new Map();

  // Runs the check function with `options` on one element and keeps what it reported.
  const capture = (options, node, vNode, context) => {
    const kept = { result: undefined, data: null, related: null };
    const helper = {
      isAsync: false,
      async() { throw new Error('color-contrast is synchronous'); },
      data(d) { kept.data = d; },
      relatedNodes(nodes) { kept.related = nodes; },
    };
    kept.result = evaluate.call(helper, node, options, vNode, context);
    return kept;
  };
  // Hands a kept result to a check helper (which turns related nodes into DqElements).
  const replay = (helper, kept) => {
    if (kept.data !== null) helper.data(kept.data);
    if (kept.related !== null) helper.relatedNodes(kept.related);
    return kept.result;
  };
  const commons = axe.commons || {};
  const text = commons.text;
  const forms = commons.forms;
  const incomplete = commons.color && commons.color.incompleteData;
  if (!text || typeof text.visibleVirtual !== 'function' || typeof text.sanitize !== 'function' || !forms || typeof forms.isNativeTextbox !== 'function') return null;
  // axe's isEmptyTextEntry: a text field (or password field) whose value is blank.
  const emptyEntry = (vNode) => {
    const props = vNode.props || {};
    if (!forms.isNativeTextbox(vNode) && props.type !== 'password') return false;
    return text.sanitize(props.value) === '';
  };
  const hundredths = (x) => typeof x === 'number' && Math.abs(x * 100 - Math.round(x * 100)) < 1e-9;

  // The AAA verdict from the AA one, or null where only running the check settles it.
  const derive = (kept, aaOptions, vNode) => {
    const d = kept.data || {};
    if (d.messageKey === 'hidden' || d.messageKey === 'nonBmp') return { result: kept.result, data: { messageKey: d.messageKey }, related: null };
    const aaNormal = aaOptions.contrastRatio && aaOptions.contrastRatio.normal;
    const small = !!aaNormal && d.expectedContrastRatio === aaNormal.expected + ':1';
    const want = small ? ratios.normal : ratios.large;
    if (d.messageKey === 'pseudoContent') return { result: undefined, data: Object.assign({}, d, { expectedContrastRatio: want.expected + ':1' }), related: kept.related };
    if (typeof d.expectedContrastRatio !== 'string' || typeof want.minThreshold !== 'number' || typeof want.maxThreshold === 'number') return null;
    if (!hundredths(want.minThreshold) || !hundredths(want.expected)) return null;
    if (d.fgColor === undefined || d.bgColor === undefined) return { result: true, data: { contrastRatio: null }, related: null };
    const t = d.contrastRatio;
    if (typeof t !== 'number') return null;
    if (t < want.minThreshold) return { result: true, data: { contrastRatio: t }, related: null };
    const valid = t > want.expected;
    if (!valid && !(t < want.expected)) return null;
    const data = { fgColor: d.fgColor, bgColor: d.bgColor, contrastRatio: t, fontSize: d.fontSize, fontWeight: d.fontWeight, messageKey: undefined, expectedContrastRatio: want.expected + ':1', shadowColor: undefined, colorParse: undefined };
    if (valid) return { result: true, data, related: null };
    // A failure: as axe's check words it, single characters and empty fields are left for
    // review; the related nodes are the background's elements, which axe cached per element
    // when the AA check computed the background.
    const cached = vNode && vNode._cache && vNode._cache.getBackgroundColor;
    if (!cached || !Array.isArray(cached.bgElms)) return null;
    const short = !aaaOptions.ignoreLength && text.visibleVirtual(vNode, false, true).length === 1;
    const empty = !short && emptyEntry(vNode);
    if (short || empty) {
      data.messageKey = short ? 'shortTextContent' : 'emptyValue';
      if (incomplete) incomplete.clear();
      return { result: undefined, data, related: cached.bgElms.slice() };
    }
    data.messageKey = null;
    return { result: false, data, related: cached.bgElms.slice() };
  };

  aa.evaluate = function evaluateBoth(node, options, vNode, context) {
    const shadowed = getComputedStyle(node).getPropertyValue('text-shadow') !== 'none';
    let enhanced = shadowed ? capture(aaaOptions, node, vNode, context) : null;
    const kept = capture(options, node, vNode, context);
    if (!enhanced) enhanced = derive(kept, options, vNode) || capture(aaaOptions, node, vNode, context);
    settled.set(node, enhanced);
    return replay(this, kept);
  };
  audit.after = function afterWithEnhanced(results, options) {
    const out = after.call(this, results, options);
    const at = out.findIndex((r) => r && r.id === 'color-contrast');
    if (at < 0 || out.some((r) => r && r.id === 'color-contrast-enhanced')) return out;
    const source = out[at];
    // Shaped as axe's RuleResult before its metadata is published.
    const derived = { id: 'color-contrast-enhanced', result: (axe.constants && axe.constants.NA) || 'inapplicable', pageLevel: false, impact: null, nodes: [] };
    for (const n of source.nodes || []) {
      const element = n.node && (n.node.element || n.node._element);
      const kept = settled.get(element);
      if (!kept) continue;
      const check = { id: 'color-contrast-enhanced', data: null, relatedNodes: [], result: null };
      check.result = replay(axe.utils.checkHelper(check, {}, () => {}, () => {}), kept);
      derived.nodes.push({ any: [check], all: [], none: [], node: n.node });
    }
    out.splice(at, 0, derived);
    return out;
  };
  return {
    restore() {
      if (ownEvaluate) aa.evaluate = evaluate; else delete aa.evaluate;
      if (ownAfter) audit.after = after; else delete audit.after;
      settled.clear();
    },
  };
};
