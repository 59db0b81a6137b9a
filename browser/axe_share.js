// Judging once per scan what a site's pages share (`regions.js` finds and fingerprints the
// regions; the scan keeps, by fingerprint, what axe found in each region the first time).
//
// `installSharing(axe, share)` prepares one `axe.run` on a page where `share.known` lists the
// regions (indexes into `window.__sitescanRegions`) already judged on another page of the scan,
// each with what axe found there, and `share.fresh` the regions judged for the first time here.
// - Every rule whose verdict on an element may depend on the rest of the page runs on the whole
//   page as always: page-level rules, rules whose checks compare elements with each other (an
//   `after` step: duplicate ids, heading order, unique landmarks, ...), and `PAGE_WIDE`.
// - Every other rule skips the elements of the known regions (its `matches` says no to them),
//   so the run judges only what is new on this page. Nothing else changes: the page, its tree,
//   the selectors (axe computes them over the whole document) and the other rules' view of it.
// - `extract(r)` takes from the run's results what each fresh region's elements got from those
//   rules (their path in the region, summary, impact and the contrast check's reason), to keep.
// - `merge(r)` gives each known region's findings back on this page's own elements: the same
//   rules, summaries and impacts, the selector axe computes for this page's element (during the
//   run, while its selector data exists), in document order among the page's other nodes, each
//   rule's impact aggregated as axe does and the rules in the order axe reports them.
// Returns null when this axe is not shaped as expected (the run then judges everything).
const PAGE_WIDE = new Set(['region', 'bypass', 'skip-link', 'frame-tested']);
const GROUPS = ['violations', 'incomplete'];
const IMPACTS = ['minor', 'moderate', 'serious', 'critical'];
const installSharing = (axe, share) => {
  const regions = window.__sitescanRegions;
  if (!share || !Array.isArray(regions) || !regions.length) return null;
  const audit = axe && axe._audit;
  const utils = axe && axe.utils;
  if (!audit || !Array.isArray(audit.rules) || !audit.checks || typeof audit.after !== 'function' || !utils || typeof utils.DqElement !== 'function') return null;
  const hasAfter = (c) => {
    const check = audit.checks[typeof c === 'string' ? c : c && c.id];
    return !!check && typeof check.after === 'function';
  };
  const local = new Set(audit.rules
    .filter((rule) => typeof rule.matches === 'function' && !rule.pageLevel && !PAGE_WIDE.has(rule.id)
      && !['any', 'all', 'none'].some((t) => (rule[t] || []).some(hasAfter)))
    .map((rule) => rule.id));
  // Each element of a region and its path of child indexes from the region's root.
  const walk = (root, visit) => {
    const stack = [[root, []]];
    while (stack.length) {
      const [el, path] = stack.pop();
      visit(el, path);
      for (let i = el.children.length - 1; i >= 0; i--) stack.push([el.children[i], path.concat(i)]);
    }
  };
  const resolve = (root, path) => {
    let el = root;
    for (const i of path) el = el && el.children[i];
    return el || null;
  };
  // Known regions whose every kept node is found on this page (else the region is judged here).
  const known = [];
  for (const k of share.known || []) {
    const root = regions[k.index];
    let entry = null;
    try { entry = JSON.parse(k.entry); } catch (e) { entry = null; }
    if (!root || !root.isConnected || !entry || typeof entry.rules !== 'object') continue;
    let whole = true;
    for (const [id, rule] of Object.entries(entry.rules)) {
      if (!local.has(id)) whole = false;
      for (const group of GROUPS) for (const n of rule[group] || []) if (!(n.element = resolve(root, n.path || []))) whole = false;
    }
    if (whole) known.push({ root, entry });
  }
  const skip = new Set();
  for (const k of known) walk(k.root, (el) => skip.add(el));
  const fresh = new Map();
  const slots = [];
  for (const i of share.fresh || []) {
    const root = regions[i];
    if (!root || skip.has(root)) continue;
    const slot = { index: i, rules: {} };
    slots.push(slot);
    walk(root, (el, path) => { if (!fresh.has(el)) fresh.set(el, { slot, path }); });
  }
  const wrapped = [];
  if (skip.size) {
    for (const rule of audit.rules) {
      if (!local.has(rule.id)) continue;
      const own = Object.prototype.hasOwnProperty.call(rule, 'matches');
      const matches = rule.matches;
      rule.matches = function sharedMatches(node, vNode, context) {
        return skip.has(node) ? false : matches.call(this, node, vNode, context);
      };
      wrapped.push([rule, own, matches]);
    }
  }
  const after = audit.after;
  const ownAfter = Object.prototype.hasOwnProperty.call(audit, 'after');
  let order = null;
  audit.after = function afterShared(results, options) {
    const out = after.call(this, results, options);
    order = new Map(out.map((x, i) => [x && x.id, i]));
    for (const k of known) {
      for (const rule of Object.values(k.entry.rules)) {
        for (const group of GROUPS) {
          for (const n of rule[group] || []) {
            try { n.target = new utils.DqElement(n.element).selector; } catch (e) { n.target = [':root']; }
          }
        }
      }
    }
    return out;
  };
  const before = (a, b) => !!a && !!b && a !== b && !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
  const highest = (nodes) => {
    let top = -1;
    for (const n of nodes) top = Math.max(top, IMPACTS.indexOf(n.impact));
    return top < 0 ? null : IMPACTS[top];
  };
  return {
    restore() {
      for (const [rule, own, matches] of wrapped) {
        if (own) rule.matches = matches; else delete rule.matches;
      }
      if (ownAfter) audit.after = after; else delete audit.after;
    },
    // [{index, entry}]: what each fresh region's elements got, as JSON text.
    extract(r) {
      for (const group of GROUPS) {
        for (const x of r[group] || []) {
          if (!local.has(x.id)) continue;
          for (const n of x.nodes || []) {
            const at = n.element && fresh.get(n.element);
            if (!at) continue;
            const rule = at.slot.rules[x.id] || (at.slot.rules[x.id] = { tags: x.tags, description: x.description, help: x.help, helpUrl: x.helpUrl, violations: [], incomplete: [] });
            rule[group].push({ path: at.path, failureSummary: n.failureSummary, impact: n.impact,
              any: (n.any || []).map((c) => (c && c.data ? { data: { messageKey: c.data.messageKey === undefined ? null : c.data.messageKey } } : {})) });
          }
        }
      }
      return slots.map((s) => ({ index: s.index, entry: JSON.stringify({ rules: s.rules }) }));
    },
    // The known regions' findings, on this page's elements.
    merge(r) {
      const touched = new Set();
      for (const k of known) {
        for (const [id, rule] of Object.entries(k.entry.rules)) {
          for (const group of GROUPS) {
            for (const n of rule[group] || []) {
              let x = (r[group] || []).find((e) => e.id === id);
              if (!x) {
                x = { id, impact: null, tags: rule.tags || [], description: rule.description || '', help: rule.help || '', helpUrl: rule.helpUrl || '', nodes: [] };
                (r[group] = r[group] || []).push(x);
              }
              const node = { any: n.any || [], all: [], none: [], impact: n.impact, html: null, target: n.target || [':root'], element: n.element, failureSummary: n.failureSummary };
              const at = x.nodes.findIndex((m) => before(node.element, m.element));
              if (at < 0) x.nodes.push(node); else x.nodes.splice(at, 0, node);
              touched.add(id);
            }
          }
        }
      }
      for (const id of touched) {
        const [v, inc] = GROUPS.map((group) => (r[group] || []).find((e) => e.id === id));
        const impact = highest(v && v.nodes.length ? v.nodes : inc ? inc.nodes : []);
        if (v) v.impact = impact;
        if (inc) inc.impact = impact;
      }
      if (touched.size && order) {
        const rank = (x) => (order.has(x.id) ? order.get(x.id) : order.size);
        for (const group of GROUPS) if (r[group]) r[group].sort((a, b) => rank(a) - rank(b));
      }
      return known.length;
    },
    stats() {
      return { reused: known.length, judged: slots.length };
    },
  };
};
