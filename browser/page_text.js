// The page's rendered text for `PageText`: `document.body.innerText` (rendered text only, in
// reading order), whitespace collapsed, capped. JSON text.
const MAX_CHARS = 20000;
const body = document.body;
let text = body ? __ss.collapse(body.innerText || '') : '';
const truncated = text.length > MAX_CHARS;
if (truncated) text = __ss.cut(text, MAX_CHARS);
return JSON.stringify({ text, truncated });
