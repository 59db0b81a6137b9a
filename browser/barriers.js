// Collects the raw facts of the barrier checks (`crates/model/src/barriers.rs`, `BarrierFacts`): text
// styled as a heading, lines that look like a list, links, images and form fields with what is
// said about them. Reads only: it moves no focus and changes nothing. Every list is capped
// (`LIMIT`) and every text cut (`TEXT`), since pages are hostile; the time it took is in `ms`.
const started = performance.now();
__ss.freezeIds();
const LIMIT = { headings: 40, lists: 40, links: 400, images: 200, fields: 200, tables: 40, rows: 200, controls: 60, hover: 30, rules: 5000, scan: 6000, generated: 30, accesskeys: 30, fieldsets: 30, idle: 30, passages: 40, passageNodes: 20000, reordered: 20, orderParents: 4000 };
const TEXT = 200;
const collapse = __ss.collapse;
const cut = (s) => { const t = collapse(s); return t.length > TEXT ? __ss.cut(t, TEXT - 1) + '…' : t; };
const sel = (el) => __ss.selector(el);
const snip = (el) => __ss.snippet(el);
const vis = (el) => __ss.visible(el);
const attr = __ss.attr;
const byIds = (ids) => String(ids || '').split(/\s+/).filter(Boolean).map((id) => document.getElementById(id)).filter(Boolean).map((e) => collapse(e.textContent)).join(' ').trim();
const hooks = window.__sitescanHooks || null;
const out = { ms: 0, body_font_size_px: 0, body_font_weight: 0, click_delegation: null, styled_headings: [], visual_lists: [], links: [], links_omitted: 0, images: [], fields: [], tables: [], controls: [], key_delegation: null, hover_only: [], generated_text: [], access_keys: [], fieldsets: [], idle_stops: [], passages: [], reordered: [], focus_watched: null, sampled: [] };
const body = document.body;
if (!body) return JSON.stringify(out);

// Text visible in an element's own subtree (alt of images, aria-label of svg), for names.
function contentName(root) {
  let s = '';
  const walk = (n) => {
    for (const c of n.childNodes) {
      if (c.nodeType === 3) { s += c.textContent; continue; }
      if (c.nodeType !== 1 || c.getAttribute('aria-hidden') === 'true') continue;
      const t = c.localName;
      if (t === 'script' || t === 'style' || t === 'template') continue;
      if (t === 'img') { s += ' ' + (c.getAttribute('alt') || '') + ' '; continue; }
      if (t === 'svg') { const tt = c.querySelector('title'); s += ' ' + (c.getAttribute('aria-label') || (tt ? tt.textContent : '')) + ' '; continue; }
      if (c.getAttribute('aria-label')) { s += ' ' + c.getAttribute('aria-label') + ' '; continue; }
      walk(c);
    }
  };
  walk(root);
  return collapse(s);
}
function accessibleName(el) {
  const lb = attr(el, 'aria-labelledby');
  if (lb) { const t = byIds(lb); if (t) return t; }
  const al = attr(el, 'aria-label');
  if (al && al.trim()) return collapse(al);
  return contentName(el);
}

// The page's body text: font size and weight carrying the most characters.
const sizes = new Map(), weights = new Map();
const NOT_BODY = 'h1,h2,h3,h4,h5,h6,[role="heading"],button,a,label,legend,th,caption,nav,header,footer,script,style,noscript,template';
{
  const tw = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  let n = 0;
  while (tw.nextNode() && n < LIMIT.scan) {
    const t = tw.currentNode;
    const len = collapse(t.textContent).length;
    const p = t.parentElement;
    if (!len || !p || p.closest(NOT_BODY)) continue;
    n++;
    const cs = getComputedStyle(p);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const size = Math.round(parseFloat(cs.fontSize) * 10) / 10;
    const weight = parseInt(cs.fontWeight, 10) || 400;
    sizes.set(size, (sizes.get(size) || 0) + len);
    weights.set(weight, (weights.get(weight) || 0) + len);
  }
}
const mode = (m) => { let best = 0, k = 0; for (const [key, v] of m) if (v > best) { best = v; k = key; } return k; };
const bodySize = mode(sizes), bodyWeight = mode(weights);
out.body_font_size_px = bodySize;
out.body_font_weight = bodyWeight;

const BLOCK = new Set(['block', 'flex', 'grid', 'list-item', 'table-cell', 'flow-root']);
const isBlock = (el) => BLOCK.has(getComputedStyle(el).display);
// Where text is something other than body text: a heading is already one, a control or label
// names something, navigation and the page header hold brand text and menus.
const EXEMPT = 'h1,h2,h3,h4,h5,h6,[role="heading"],button,a,label,legend,th,td,caption,figcaption,summary,dt,nav,header,footer,dialog,[role="dialog"],[role="button"],[role="link"],[role="tab"],[role="tablist"],[role="menu"],[role="menuitem"],[role="option"],[role="listbox"],[role="columnheader"],[role="rowheader"],[role="navigation"],[role="banner"],[role="contentinfo"],[aria-hidden="true"],pre,code,ul,ol,[role="list"],table,select,textarea';
const INNER_EXEMPT = 'h1,h2,h3,h4,h5,h6,[role="heading"],a,button,input,select,textarea,img,svg,br,p,div,ul,ol,table,li';
// The next block of content after `el`: its next element sibling, or its parent's.
function nextBlock(el) {
  let n = el;
  for (let depth = 0; n && depth < 4; depth++) {
    let s = n.nextElementSibling;
    while (s && !vis(s)) s = s.nextElementSibling;
    if (s) return s;
    n = n.parentElement;
    if (n === body) return null;
  }
  return null;
}

// 1. Text styled as a heading.
if (bodySize > 0) {
  const all = body.querySelectorAll('p,div,span,strong,b,font');
  let n = 0;
  for (const el of all) {
    if (out.styled_headings.length >= LIMIT.headings) break;
    if (++n > LIMIT.scan) { out.sampled.push({ what: 'elements that may be text styled as a heading', read: LIMIT.scan, total: all.length }); break; }
    if (el.closest(EXEMPT) || el.querySelector(INNER_EXEMPT)) continue;
    if (!isBlock(el) || !vis(el)) continue;
    const text = collapse(el.textContent);
    const words = text.split(' ').filter(Boolean).length;
    if (text.length < 3 || text.length > 80 || words > 10 || /[.,;:!?…]$/.test(text)) continue;
    // The smallest and lightest style any of its text has (a bold word in a normal line is no
    // bold line).
    let size = Infinity, weight = Infinity;
    const tw = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    while (tw.nextNode()) {
      const t = tw.currentNode;
      if (!collapse(t.textContent) || !t.parentElement) continue;
      const cs = getComputedStyle(t.parentElement);
      size = Math.min(size, parseFloat(cs.fontSize));
      weight = Math.min(weight, parseInt(cs.fontWeight, 10) || 400);
    }
    if (!Number.isFinite(size)) continue;
    const ratio = size / bodySize;
    const bolder = weight >= 600 && bodyWeight < 600;
    if (!(ratio >= 1.25 || (bolder && ratio >= 1.0))) continue;
    const next = nextBlock(el);
    if (!next || next.matches('h1,h2,h3,h4,h5,h6,[role="heading"]')) continue;
    const nextText = collapse(next.textContent);
    // Followed by content: a longer block of body-sized text.
    if (nextText.length <= text.length) continue;
    const ncs = getComputedStyle(next);
    if (parseFloat(ncs.fontSize) >= size && (parseInt(ncs.fontWeight, 10) || 400) >= weight) continue;
    out.styled_headings.push({ selector: sel(el), snippet: snip(el), text: cut(text), font_size_px: Math.round(size * 10) / 10, font_weight: weight, next_selector: sel(next) });
  }
}

// 2. Lines that look like a list: 2+ consecutive siblings (or <br>-separated lines) starting
// with a bullet, or numbered 1, 2, ... in order.
const BULLET = /^([•·▪‣◦●○■□➢►✓✔\-*–—])\s+\S/;
const NUMBER = /^(\d{1,2})[.)]\s+\S/;
function listRun(lines) {
  // The longest run of consecutive lines with the same bullet or counting up from 1.
  let best = { count: 0, marker: '', start: 0 };
  let i = 0;
  while (i < lines.length) {
    const b = BULLET.exec(lines[i]);
    const m = NUMBER.exec(lines[i]);
    let j = i + 1;
    if (b) {
      while (j < lines.length && BULLET.exec(lines[j]) && BULLET.exec(lines[j])[1] === b[1]) j++;
      if (j - i > best.count) best = { count: j - i, marker: b[1], start: i };
    } else if (m && m[1] === '1') {
      let k = 1;
      while (j < lines.length && NUMBER.exec(lines[j]) && Number(NUMBER.exec(lines[j])[1]) === k + 1) { j++; k++; }
      if (j - i > best.count) best = { count: j - i, marker: '1.', start: i };
    }
    i = j;
  }
  return best;
}
const LIST_EXEMPT = 'ul,ol,[role="list"],[role="listbox"],[role="menu"],[role="tree"],[role="grid"],table,pre,code,textarea,select,nav,[role="navigation"],[aria-hidden="true"],script,style,template';
{
  const seenParents = new Set();
  const blocks = body.querySelectorAll('p,div,span,td,section,article,main,aside,blockquote');
  let n = 0;
  for (const el of blocks) {
    if (out.visual_lists.length >= LIMIT.lists) break;
    if (++n > LIMIT.scan) { out.sampled.push({ what: 'blocks that may be lists set out by hand', read: LIMIT.scan, total: blocks.length }); break; }
    if (el.closest(LIST_EXEMPT) || !vis(el)) continue;
    // <br>-separated lines in one block of text only.
    if (el.querySelector('br') && !el.querySelector('p,div,ul,ol,table,li,h1,h2,h3,h4,h5,h6')) {
      const lines = (el.innerText || '').split('\n').map(collapse).filter(Boolean);
      const run = listRun(lines);
      if (run.count >= 2) {
        out.visual_lists.push({ selector: sel(el), snippet: snip(el), items: run.count, marker: run.marker, text: cut(lines.slice(run.start, run.start + 3).join(' / ')), form: 'br' });
        continue;
      }
    }
    // Consecutive sibling blocks, judged once per parent.
    const parent = el.parentElement;
    if (!parent || seenParents.has(parent) || el.tagName === 'SPAN') continue;
    seenParents.add(parent);
    const kids = Array.from(parent.children).filter((c) => /^(P|DIV)$/.test(c.tagName) && vis(c) && !c.querySelector('p,div,ul,ol,table'));
    if (kids.length < 2) continue;
    const lines = kids.map((c) => collapse(c.textContent));
    const run = listRun(lines);
    // Consecutive in the parent too: nothing but the run's items between its first and last.
    if (run.count >= 2) {
      const first = kids[run.start], last = kids[run.start + run.count - 1];
      const siblings = Array.from(parent.children);
      if (siblings.indexOf(last) - siblings.indexOf(first) !== run.count - 1) continue;
      out.visual_lists.push({ selector: sel(first), snippet: snip(first), items: run.count, marker: run.marker, text: cut(lines.slice(run.start, run.start + 3).join(' / ')), form: 'siblings' });
    }
  }
}

// The nearest ancestor that is not laid out inline.
function blockOf(el) {
  for (let e = el.parentElement; e; e = e.parentElement) if (!getComputedStyle(e).display.startsWith('inline')) return e;
  return null;
}

// 7-10. Links.
{
  const clickDelegated = hooks && typeof hooks.clickDelegated === 'function' ? hooks.clickDelegated() : null;
  out.click_delegation = clickDelegated;
  const anchors = body.querySelectorAll('a[href]');
  let prev = null, prevHref = null;
  for (const a of anchors) {
    if (out.links.length >= LIMIT.links) { out.links_omitted++; continue; }
    if (!vis(a)) { prev = null; continue; }
    const raw = a.getAttribute('href');
    let handler = null;
    if (hooks) {
      handler = false;
      for (let e = a; e && e !== document.documentElement; e = e.parentElement) {
        if (hooks.hasClick(e) || (hooks.hasKey && hooks.hasKey(e))) { handler = true; break; }
      }
    }
    const name = accessibleName(a);
    const title = attr(a, 'title');
    const describedby = attr(a, 'aria-describedby');
    let adjacent = null;
    if (prev && prevHref === a.href) {
      // Adjacent: nothing but white space between the two links.
      const r = document.createRange();
      // And in one block of text: a brand link in the header and the first menu item of the
      // navigation after it are no pair.
      try { r.setStartAfter(prev); r.setEndBefore(a); if (!collapse(r.toString()) && !prev.contains(a) && blockOf(prev) === blockOf(a)) adjacent = sel(prev); } catch (_) {}
    }
    out.links.push({
      selector: sel(a),
      snippet: snip(a),
      href_raw: cut(raw),
      href: cut(a.href || ''),
      name: cut(name),
      title: title === null ? null : cut(title),
      described: describedby ? cut(byIds(describedby)) : null,
      target: attr(a, 'target'),
      type_attr: attr(a, 'type'),
      role: attr(a, 'role'),
      has_handler: handler,
      image_only: !collapse(a.textContent) && !!a.querySelector('img,svg'),
      adjacent_same_href: adjacent,
    });
    prev = a; prevHref = a.href;
  }
}

// 11. Things that act on a click but not for the keyboard: elements with a click listener of
// their own (`hooks.js`) that are no native control, said with the focus and key handling they
// have. Inside a composite widget (listbox, menu, grid, tree, tab list) or under
// aria-activedescendant the widget moves focus itself, and such elements are left out.
if (hooks && typeof hooks.keyDelegated === 'function') {
  out.key_delegation = hooks.keyDelegated();
  const NATIVE = 'a[href],button,input,select,textarea,summary,label,option,area[href],iframe,video,audio,[contenteditable=""],[contenteditable="true"]';
  const COMPOSITE = '[role="listbox"],[role="menu"],[role="menubar"],[role="tree"],[role="treegrid"],[role="grid"],[role="tablist"],[role="radiogroup"],[aria-activedescendant],[contenteditable=""],[contenteditable="true"]';
  const vw = window.innerWidth || 1, vh = window.innerHeight || 1;
  const all = body.getElementsByTagName('*');
  const n = Math.min(all.length, LIMIT.scan);
  for (let i = 0; i < n && out.controls.length < LIMIT.controls; i++) {
    const el = all[i];
    if (!hooks.hasClick(el) || el.matches(NATIVE) || el.closest('a[href],button,label,summary,select,[inert]') || el.closest(COMPOSITE)) continue;
    if (!vis(el)) continue;
    const r = el.getBoundingClientRect();
    // A container that hands clicks on to what it holds (delegation), or a whole region: no
    // control.
    if (el.querySelector(NATIVE) || r.width * r.height > 0.25 * vw * vh) continue;
    let keyHandler = false;
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) if (hooks.hasKey(e)) { keyHandler = true; break; }
    out.controls.push({
      selector: sel(el),
      snippet: snip(el),
      role: attr(el, 'role'),
      tabindex: attr(el, 'tabindex'),
      focusable: el.tabIndex >= 0 && el.hasAttribute('tabindex'),
      name: cut(accessibleName(el)),
      key_handler: keyHandler,
      pointer: getComputedStyle(el).cursor === 'pointer',
    });
  }
}

// 12. Images and what is said around them.
{
  for (const img of body.querySelectorAll('img')) {
    if (out.images.length >= LIMIT.images) break;
    if (!vis(img)) continue;
    let file = '';
    try { const u = new URL(img.currentSrc || img.src, document.baseURI); file = decodeURIComponent(u.pathname.split('/').pop() || ''); } catch (_) {}
    const fig = img.closest('figure');
    const cap = fig ? fig.querySelector('figcaption') : null;
    out.images.push({
      selector: sel(img),
      snippet: snip(img),
      alt: img.hasAttribute('alt') ? cut(img.getAttribute('alt')) : null,
      title: img.hasAttribute('title') ? cut(img.getAttribute('title')) : null,
      aria_name: !!(attr(img, 'aria-label') || attr(img, 'aria-labelledby')),
      role: attr(img, 'role'),
      file: cut(file),
      caption: cap ? cut(cap.textContent) : null,
      in_control: !!img.closest('a,button'),
    });
  }
}

// 6. Tables: the shape of each table and what it says about its headers, for the checks to
// tell a data table without header cells from a layout table that speaks as a data table.
{
  const bold = (el) => (parseInt(getComputedStyle(el).fontWeight, 10) || 400) >= 600;
  const paint = (el) => { const cs = getComputedStyle(el); return cs.backgroundColor + '|' + cs.color; };
  const NUMERIC = /^[-+−]?[$€£¥]?\s?\d[\d.,\s]*%?\s?([a-zA-Z€$£%]{0,3})$/;
  for (const t of body.querySelectorAll('table')) {
    if (out.tables.length >= LIMIT.tables) break;
    if (!vis(t)) continue;
    const rows = Array.from(t.rows).filter((r) => r.closest('table') === t).slice(0, LIMIT.rows);
    let cols = 0, th = 0, td = 0, headerAttrs = 0, numeric = 0, filled = 0, chars = 0, borders = 0;
    for (const r of rows) {
      let width = 0;
      for (const c of r.cells) {
        width += Math.max(1, c.colSpan || 1);
        const role = attr(c, 'role');
        if (c.localName === 'th') th++; else td++;
        if (role === 'columnheader' || role === 'rowheader' || (c.localName === 'td' && (c.hasAttribute('scope') || c.hasAttribute('headers')))) headerAttrs++;
        const text = collapse(c.textContent);
        if (text) { filled++; chars += text.length; if (NUMERIC.test(text)) numeric++; }
        const cs = getComputedStyle(c);
        if (parseFloat(cs.borderTopWidth) > 0 && cs.borderTopStyle !== 'none' && cs.borderTopStyle !== 'hidden') borders++;
      }
      cols = Math.max(cols, width);
    }
    const cap = t.caption ? collapse(t.caption.textContent) : '';
    const firstRow = rows[0] ? Array.from(rows[0].cells) : [];
    const second = rows[1] ? Array.from(rows[1].cells) : [];
    const firstCol = rows.map((r) => r.cells[0]).filter(Boolean);
    const otherCol = rows.map((r) => r.cells[1]).filter(Boolean);
    const distinct = (head, rest) => head.length > 1 && rest.length > 0 && head.every((c) => collapse(c.textContent))
      && ((head.every(bold) && !rest.every(bold)) || (new Set(head.map(paint)).size === 1 && !rest.some((c) => paint(c) === paint(head[0]))));
    out.tables.push({
      selector: sel(t),
      snippet: snip(t),
      role: attr(t, 'role'),
      rows: rows.length,
      cols,
      th,
      td,
      header_attrs: headerAttrs,
      caption: cap ? cut(cap) : null,
      summary: (attr(t, 'summary') || '').trim() ? cut(attr(t, 'summary')) : null,
      contains_table: !!t.querySelector('table'),
      holds_data_table: (() => { const inner = Array.from(t.querySelectorAll('table')).find((x) => x.querySelector('th,caption') || /^(table|grid|treegrid)$/i.test(attr(x, 'role') || '')); return inner ? sel(inner) : null; })(),
      inside_table: !!(t.parentElement && t.parentElement.closest('table')),
      layout_content: !!t.querySelector('h1,h2,h3,h4,h5,h6,[role="heading"],nav,[role="navigation"],main,header,footer,article,p + p,iframe,video'),
      controls: !!t.querySelector('input:not([type="hidden"]),select,textarea,button'),
      filled,
      numeric,
      avg_chars: filled ? Math.round(chars / filled) : 0,
      bordered: borders,
      first_row_distinct: distinct(firstRow, second),
      first_col_distinct: rows.length > 1 && distinct(firstCol, otherCol),
    });
  }
}

// 3-5. Form fields: their labels, group and nearby hint text.
const HINT = /\b(format|must|at least \d+|at most \d+|\d+\s+(characters|digits|letters)|e\.g\.|for example|dd\/mm|mm\/dd|yyyy)\b/i;
function groupName(el) {
  for (let g = el.parentElement; g && g !== body; g = g.parentElement) {
    if (g.localName === 'fieldset') {
      const lg = g.querySelector(':scope > legend');
      const t = lg ? collapse(lg.textContent) : accessibleNameOfGroup(g);
      if (t) return t;
    }
    const role = attr(g, 'role');
    if (role === 'radiogroup' || role === 'group') {
      const t = accessibleNameOfGroup(g);
      if (t) return t;
    }
  }
  return null;
}
function accessibleNameOfGroup(g) {
  const lb = attr(g, 'aria-labelledby');
  if (lb) { const t = byIds(lb); if (t) return t; }
  const al = attr(g, 'aria-label');
  return al && al.trim() ? collapse(al) : '';
}
// Text right after the field (or after the label that wraps it), or between the field and the
// label just before it (label, hint, field: the GOV.UK pattern), in an element of its own that no
// control or label is: a hint a sighted visitor reads with the field.
function nearbyHint(el) {
  let anchor = el;
  const wrap = el.closest('label');
  if (wrap) anchor = wrap;
  const skip = (s, step) => { while (s && (s.localName === 'br' || !vis(s))) s = s[step]; return s; };
  const hintIn = (s) => {
    if (!s || s.matches('label,input,select,textarea,button,a,fieldset,form,h1,h2,h3,h4,h5,h6') || s.querySelector('input,select,textarea,button,label')) return null;
    const t = collapse(s.textContent);
    return t && t.length <= 150 && HINT.test(t) ? { el: s, text: t } : null;
  };
  const after = hintIn(skip(anchor.nextElementSibling, 'nextElementSibling'));
  if (after || wrap) return after;
  const before = skip(anchor.previousElementSibling, 'previousElementSibling');
  const label = before && skip(before.previousElementSibling, 'previousElementSibling');
  return label && label.localName === 'label' && el.id && attr(label, 'for') === el.id ? hintIn(before) : null;
}
{
  const controls = body.querySelectorAll('input,select,textarea');
  for (const el of controls) {
    if (out.fields.length >= LIMIT.fields) break;
    const type = el.localName === 'input' ? (el.type || 'text').toLowerCase() : el.localName;
    if (['hidden', 'submit', 'reset', 'button', 'image'].includes(type) || !vis(el)) continue;
    const labels = el.labels ? Array.from(el.labels).filter((l) => vis(l)).map((l) => cut(l.textContent)) : [];
    const hint = nearbyHint(el);
    const describedby = attr(el, 'aria-describedby');
    const form = el.form || el.closest('form');
    out.fields.push({
      selector: sel(el),
      snippet: snip(el),
      tag: el.localName,
      type_: type,
      name: attr(el, 'name'),
      form: form ? sel(form) : '',
      labels,
      aria_name: !!((attr(el, 'aria-labelledby') && byIds(attr(el, 'aria-labelledby'))) || (attr(el, 'aria-label') || '').trim()),
      title: attr(el, 'title'),
      placeholder: attr(el, 'placeholder'),
      group: groupName(el),
      described: describedby ? cut(byIds(describedby)) : null,
      hint: hint ? cut(hint.text) : null,
      hint_selector: hint ? sel(hint.el) : null,
      hint_tied: !!(hint && describedby && describedby.split(/\s+/).some((id) => { const d = document.getElementById(id); return d && (d === hint.el || hint.el.contains(d) || d.contains(hint.el)); })),
    });
  }
}
// The page's style rules (those of grouping rules included), for sections 14 and 15.
const rules = [];
{
  const walk = (list) => {
    for (const r of list) {
      if (rules.length >= LIMIT.rules) return;
      if (r.selectorText !== undefined && r.style) rules.push(r);
      else if (r.cssRules) { try { walk(r.cssRules); } catch (_) {} }
    }
  };
  for (const sheet of Array.from(document.styleSheets)) {
    try { walk(sheet.cssRules); } catch (_) {}
  }
}
// 14. Content a style sheet shows on hover only: a `:hover` rule that reveals something hidden
// now (display, visibility or opacity), with no `:focus`, `:focus-within` or `:focus-visible`
// twin of the same selector anywhere in the page's style sheets. Menus whose sub-items open on
// hover and tooltips are the usual cases. Style sheets of another origin cannot be read.
{
  const norm = (x) => x.replace(/\s+/g, '').replace(/::?(hover|focus-within|focus-visible|focus)\b/g, ':@');
  const focusTwins = new Set();
  for (const r of rules) for (const one of r.selectorText.split(',')) if (/:focus/.test(one)) focusTwins.add(norm(one));
  const reveals = (st) => (st.display && st.display !== 'none') || st.visibility === 'visible' || (st.opacity !== '' && parseFloat(st.opacity) > 0);
  out.focus_watched = hooks && typeof hooks.focusWatched === 'function' ? hooks.focusWatched() : null;
  // Text of hidden content, its text nodes apart (`textContent` runs list items together).
  const spaced = (el) => { const parts = []; const tw = document.createTreeWalker(el, NodeFilter.SHOW_TEXT); while (tw.nextNode() && parts.length < 200) parts.push(tw.currentNode.textContent); return parts.join(' '); };
  const seen = new Set();
  for (const r of rules) {
    if (out.hover_only.length >= LIMIT.hover) break;
    if (!/:hover/.test(r.selectorText) || !reveals(r.style)) continue;
    for (const one of r.selectorText.split(',')) {
      if (out.hover_only.length >= LIMIT.hover) break;
      const at = one.indexOf(':hover');
      if (at < 0 || focusTwins.has(norm(one))) continue;
      const triggerSel = one.slice(0, at).trim();
      const targetSel = (one.slice(0, at) + one.slice(at + 6)).trim();
      if (!triggerSel || !targetSel || seen.has(one)) continue;
      seen.add(one);
      let triggers = [], targets = [];
      try { triggers = Array.from(document.querySelectorAll(triggerSel)).slice(0, 50); targets = Array.from(document.querySelectorAll(targetSel)).slice(0, 200); } catch (_) { continue; }
      // What the rule would reveal and is hidden now, inside (or being) a visible trigger.
      let found = null;
      for (const t of triggers) {
        if (!vis(t)) continue;
        const hidden = targets.find((x) => (x === t || t.contains(x)) && !vis(x));
        if (hidden) { found = { t, hidden }; break; }
      }
      if (!found) continue;
      const focusableIn = (el) => !!el.querySelector('a[href],button,input,select,textarea,[tabindex]');
      out.hover_only.push({
        selector: sel(found.t),
        snippet: snip(found.t),
        rule: cut(one.trim()),
        revealed: sel(found.hidden),
        revealed_text: cut(spaced(found.hidden)),
        revealed_controls: focusableIn(found.hidden),
        trigger_focusable: found.t.matches('a[href],button,input,select,textarea,summary,[tabindex]') || focusableIn(found.t),
      });
    }
  }
}

// 15. Words a style sheet writes into the page: a `::before` or `::after` whose `content` holds
// a string with letters or digits, shown on a visible element. Such text is not in the document:
// it cannot be selected, copied, translated or restyled by the reader, and assistive technologies
// differ on reading it. Quotation marks, arrows, bullets, icon-font glyphs (private-use
// characters), counters and `attr()` are left alone. Rules are read from the style sheets, then
// confirmed on the element's computed style (a print-only rule is never shown).
{
  const WORDY = /[\p{L}\p{N}]{2,}/u;
  const strings = (value) => (String(value).match(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g) || []).map((q) => q.slice(1, -1).replace(/\\(.)/g, '$1')).join('');
  const seen = new Set();
  for (const r of rules) {
    if (out.generated_text.length >= LIMIT.generated) break;
    const declared = r.style.getPropertyValue('content');
    if (!declared || !WORDY.test(strings(declared))) continue;
    for (const one of r.selectorText.split(',')) {
      const m = /::?(before|after)\s*$/i.exec(one);
      if (!m) continue;
      const pseudo = '::' + m[1].toLowerCase();
      let els = [];
      try { els = Array.from(document.querySelectorAll(one.slice(0, m.index).trim() || '*')).slice(0, 20); } catch (_) { continue; }
      for (const el of els) {
        if (out.generated_text.length >= LIMIT.generated) break;
        const key = sel(el) + pseudo;
        if (seen.has(key) || !vis(el)) continue;
        const cs = getComputedStyle(el, pseudo);
        const text = collapse(strings(cs.content));
        if (!WORDY.test(text) || cs.display === 'none' || cs.visibility === 'hidden' || parseFloat(cs.fontSize) < 2) continue;
        seen.add(key);
        out.generated_text.push({ selector: sel(el), snippet: snip(el), pseudo, text: cut(text), rule: cut(one.trim()) });
      }
    }
  }
}

// 16. Elements that declare a keyboard shortcut (`accesskey`).
for (const el of body.querySelectorAll('[accesskey]')) {
  if (out.access_keys.length >= LIMIT.accesskeys) break;
  const key = (attr(el, 'accesskey') || '').trim();
  if (key) out.access_keys.push({ selector: sel(el), snippet: snip(el), key: __ss.cut(key, 20) });
}

// 17. Visible fieldsets that hold no radio button or check box (those are judged with their
// group, section 3-5) and whether anything names them.
for (const fs of body.querySelectorAll('fieldset')) {
  if (out.fieldsets.length >= LIMIT.fieldsets) break;
  if (!vis(fs) || fs.querySelector('input[type="radio" i],input[type="checkbox" i]')) continue;
  const lg = fs.querySelector(':scope > legend');
  out.fieldsets.push({
    selector: sel(fs),
    snippet: snip(fs),
    has_legend: !!lg,
    name: cut(lg ? collapse(lg.textContent) || accessibleNameOfGroup(fs) : accessibleNameOfGroup(fs)),
    controls: fs.querySelectorAll('input:not([type="hidden" i]):not([type="submit" i]):not([type="button" i]):not([type="image" i]):not([type="reset" i]),select,textarea').length,
  });
}

// 18. Tab stops that do nothing: content (a paragraph, a heading, a caption) put in the tab order
// (`tabindex` >= 0) that is no control: not native, no widget or region role, no click or key
// listener of its own or above it (`hooks.js`), not a scrollable box (the keyboard needs the stop
// to scroll it), holding no control, describing nothing, styled by no `:focus` rule (a tooltip's
// trigger), and carrying nothing that says it is meant to act (below). Read only where the listener record is.
if (hooks && typeof hooks.hasClick === 'function' && typeof hooks.hasKey === 'function') {
  const NATIVE = 'a[href],button,input,select,textarea,summary,label,option,area[href],iframe,video,audio,details,[contenteditable=""],[contenteditable="true"]';
  const IN_CHROME = 'nav,[role="navigation"],[role="menu"],[role="menubar"],[role="toolbar"],header,[role="banner"],[role="dialog"]';
  const CONTROL_ATTR = /^(aria-(label|labelledby|haspopup|expanded|controls|pressed|selected|checked)|data-.*|on[a-z]+)$/;
  const CONTROL_WORDS = /(btn|button|toggle|share|search|menu|popup|modal|icon|tip|close|open|drop|slide|carousel|tab|edition|sign|login|nav)/i;
  const CONTROL_TEXT = /^(sign (in|up|out)|log ?(in|out)|register|search|menu|close|open|share|subscribe|print|copy|e-?mail|more|less|show|hide|next|previous|prev|back|top)$/i;
  const WIDGET = /^(button|link|checkbox|radio|switch|tab|tablist|tabpanel|menu|menubar|menuitem|menuitemcheckbox|menuitemradio|option|listbox|slider|spinbutton|textbox|searchbox|combobox|tree|treeitem|treegrid|grid|gridcell|row|scrollbar|radiogroup|dialog|alertdialog|application|region|img|figure|document|article|log|status|marquee|feed|separator)$/;
  // What a `:focus` rule styles is doing something (a tooltip trigger that shows its tip).
  const focusStyled = [];
  for (const r of rules) for (const one of r.selectorText.split(',')) {
    const at = one.search(/:focus/);
    if (at > 0) focusStyled.push(one.slice(0, at).trim());
  }
  const styledOnFocus = (el) => focusStyled.some((s) => { try { return s && el.matches(s); } catch (_) { return false; } });
  for (const el of body.querySelectorAll('[tabindex]')) {
    if (out.idle_stops.length >= LIMIT.idle) break;
    if (el.tabIndex < 0 || el.matches(NATIVE) || el.closest('[aria-activedescendant],[role="application"],[inert]') || !vis(el)) continue;
    const role = (attr(el, 'role') || '').trim().split(/\s+/)[0].toLowerCase();
    if ((role && WIDGET.test(role)) || attr(el, 'aria-describedby') || el.querySelector(NATIVE)) continue;
    // What says it is a control whose script did not attach (or attached where the record
    // cannot see: a framework's root, a script of another origin that failed to load): a name
    // or state for assistive technologies, data for a script, a control's class or words, a
    // place in navigation or a header. Only content put in the tab order is judged.
    if (el.closest(IN_CHROME) || Array.from(el.attributes).some((a) => CONTROL_ATTR.test(a.name))) continue;
    if (CONTROL_WORDS.test(String(el.id || '') + ' ' + (typeof el.className === 'string' ? el.className : '')) || CONTROL_TEXT.test(collapse(el.textContent))) continue;
    let handled = false;
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) if (hooks.hasClick(e) || hooks.hasKey(e)) { handled = true; break; }
    // Styled on focus, or holding something hidden that focus may show (its style sheet can be
    // of another origin, unread).
    if (handled || styledOnFocus(el) || Array.from(el.children).some((c) => !vis(c))) continue;
    const cs = getComputedStyle(el);
    if (/(auto|scroll)/.test(cs.overflowX + ' ' + cs.overflowY) && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)) continue;
    out.idle_stops.push({ selector: sel(el), snippet: snip(el), tabindex: attr(el, 'tabindex'), role: role || null, text: cut(el.textContent) });
  }
}

// 19. Passages whose script or direction may not match what the page declares: the text of each
// block (or of an element with its own `lang` or `dir`) that holds a letter of a script other than
// Latin, or that is laid out right to left, with the language it inherits and its direction. The
// checks judge which scripts the declared language writes.
{
  const PASSAGE = 'p,li,td,th,dd,dt,h1,h2,h3,h4,h5,h6,blockquote,figcaption,caption,label,legend,button,a,q,cite,bdi,div,section,article,main,aside,header,footer,nav,[lang],[dir]';
  const NOT_LATIN = /(?!\p{Script=Latin})\p{L}/u;
  // Right to left is set by `dir` (or, rarely, by CSS on the body): without either, no block's
  // direction needs reading.
  const rtlPossible = !!body.querySelector('[dir]') || document.documentElement.hasAttribute('dir') || getComputedStyle(body).direction === 'rtl';
  // The first words of a block, read node by node (a block can be the whole page).
  const head = (block) => {
    const w = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    let s = '';
    while (w.nextNode() && s.length < TEXT * 2) {
      const e = w.currentNode.parentElement;
      if (e && !e.closest('script,style,noscript,template')) s += ' ' + w.currentNode.textContent.slice(0, TEXT * 2);
    }
    return cut(s);
  };
  const seen = new Set(), read = new Set();
  const tw = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  let n = 0;
  while (tw.nextNode() && out.passages.length < LIMIT.passages) {
    const text = collapse(tw.currentNode.textContent);
    if (!text) continue;
    if (++n > LIMIT.passageNodes) { out.sampled.push({ what: 'text nodes read for their script and direction', read: LIMIT.passageNodes, total: LIMIT.passageNodes + 1 }); break; }
    const p = tw.currentNode.parentElement;
    if (!p || p.closest('script,style,noscript,template,textarea,code,pre,kbd,samp,svg,math')) continue;
    const block = p.closest(PASSAGE) || body;
    if (seen.has(block)) continue;
    const foreign = NOT_LATIN.test(text);
    if (!foreign && (!rtlPossible || read.has(block))) continue;
    read.add(block);
    const cs = getComputedStyle(block);
    if (!foreign && cs.direction !== 'rtl') continue;
    seen.add(block);
    if (!vis(block)) continue;
    const langEl = block.closest('[lang]');
    const dirEl = block.closest('[dir]');
    out.passages.push({
      selector: sel(block),
      snippet: snip(block),
      text: head(block),
      run: foreign ? cut(text) : null,
      lang: langEl ? attr(langEl, 'lang') : null,
      lang_own: langEl === block,
      direction: cs.direction,
      // `<bdi>` is `dir="auto"` unless it says otherwise.
      dir_attr: block.localName === 'bdi' && !block.hasAttribute('dir') ? 'auto' : (dirEl ? attr(dirEl, 'dir') : null),
      plaintext: cs.unicodeBidi === 'plaintext',
      inline: cs.display.startsWith('inline'),
    });
  }
}

// 20. Siblings shown in another order than the source's: among the visible children of an element
// that stand on one line, one that comes later in the source but stands before an earlier one
// (left of it, in a left-to-right container): `float: right`, `row-reverse`, `order`, a grid's
// placement. Screen readers read, and Tab moves, in the source's order. Geometry first (cheap);
// styles only for the pairs found.
{
  const FOCUSABLE = 'a[href],button,input:not([type="hidden" i]),select,textarea,summary,[tabindex]:not([tabindex^="-"])';
  const SKIP = /^(script|style|template|svg|math|select|datalist|option|optgroup|head|picture|video|audio|canvas|iframe|map)$/;
  const docWidth = Math.max(document.documentElement.scrollWidth, innerWidth);
  const textOf = (el) => cut(__ss.cut(el.innerText || '', 400));
  // Items of a line (links, steps, offers), not the columns of a page: a sidebar shown left of
  // the content it follows is a layout choice, seldom a change of meaning.
  const item = (el, r) => r.height <= innerHeight / 2 && collapse(__ss.cut(el.innerText || '', 1000)).length <= 400;
  const tw = document.createTreeWalker(body, NodeFilter.SHOW_ELEMENT);
  let n = 0;
  while (tw.nextNode() && out.reordered.length < LIMIT.reordered) {
    const parent = tw.currentNode;
    if (parent.childElementCount < 3 || SKIP.test(parent.localName)) continue;
    if (++n > LIMIT.orderParents) { out.sampled.push({ what: 'elements read for the order their children are shown in', read: LIMIT.orderParents, total: LIMIT.orderParents + 1 }); break; }
    const kids = [];
    for (const c of parent.children) {
      if (kids.length >= 60) break;
      if (SKIP.test(c.localName) || c.getAttribute('aria-hidden') === 'true') continue;
      const r = c.getBoundingClientRect();
      if (r.width < 4 || r.height < 4 || r.right <= 0 || r.left >= docWidth) continue;
      kids.push({ el: c, r });
    }
    if (kids.length < 3) continue;
    const sameLine = (a, b) => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) >= 0.5 * Math.min(a.height, b.height);
    let rtl = null;
    for (let i = 0; i + 1 < kids.length; i++) {
      const a = kids[i], b = kids[i + 1];
      if (!sameLine(a.r, b.r)) continue;
      if (rtl === null) rtl = getComputedStyle(parent).direction === 'rtl';
      const before = rtl ? b.r.left >= a.r.right - 1 : b.r.right <= a.r.left + 1;
      if (!before) continue;
      // Three or more on the line, both in the flow and with something to read or focus.
      if (kids.filter((k) => sameLine(k.r, a.r)).length < 3) continue;
      const sa = getComputedStyle(a.el), sb = getComputedStyle(b.el);
      if (/^(absolute|fixed)$/.test(sa.position) || /^(absolute|fixed)$/.test(sb.position)) continue;
      if (!vis(a.el) || !vis(b.el)) continue;
      if (!item(a.el, a.r) || !item(b.el, b.r)) continue;
      const ta = textOf(a.el), tb = textOf(b.el);
      const fa = a.el.matches(FOCUSABLE) || !!a.el.querySelector(FOCUSABLE), fb = b.el.matches(FOCUSABLE) || !!b.el.querySelector(FOCUSABLE);
      if (!(ta || fa) || !(tb || fb)) continue;
      const ps = getComputedStyle(parent);
      const cause = /reverse/.test(ps.flexDirection) && /flex/.test(ps.display) ? 'flex-direction: ' + ps.flexDirection
        : (sa.order !== '0' || sb.order !== '0') && /flex|grid/.test(ps.display) ? 'order'
        : (sa.float === 'right' || sb.float === 'right') ? 'float: right'
        : /grid/.test(ps.display) ? 'grid placement'
        : (sa.position === 'relative' || sb.position === 'relative') ? 'position: relative'
        : 'layout';
      out.reordered.push({
        selector: sel(parent),
        snippet: snip(parent),
        first_selector: sel(a.el),
        first_text: ta,
        second_selector: sel(b.el),
        second_text: tb,
        focusable: fa && fb,
        cause,
      });
      break;
    }
  }
}

out.ms = Math.round((performance.now() - started) * 10) / 10;
return JSON.stringify(out);
