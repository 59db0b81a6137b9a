// What the in-page judgements beyond axe-core (barriers, the keyboard walk, layout, dialogs) read
// that `regions.js`' whole-page fingerprint leaves out: the address links resolve against, and
// the page's scripts (their markup is in the fingerprint, not what they do). Returns JSON text:
// null when the page holds what neither can see (a frame, an object, an embed), else
// {href, base, inline: [each script's type, source and inline text]}. The bodies of the scripts
// and data the page loaded are read from the network record (`unchanged.rs`).
if (!document.documentElement || document.querySelector('iframe, frame, object, embed, portal, fencedframe')) return JSON.stringify(null);
const inline = [];
for (const s of document.querySelectorAll('script')) inline.push(s.type + '|' + s.src + '|' + (s.src ? '' : s.text));
return JSON.stringify({ href: location.href, base: document.baseURI, inline });
