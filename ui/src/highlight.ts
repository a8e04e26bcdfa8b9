// Code highlighting, loaded only when a page has fenced code with a language: highlight.js's
// core and a handful of common languages (their aliases too: js, ts, py, rs, sh, yml, html,
// toml…). Unknown languages stay plain.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, c, css, diff, go, ini, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Highlights every `pre > code.language-…` below `root` whose language is known. */
export function highlightBelow(root: HTMLElement) {
  for (const code of root.querySelectorAll<HTMLElement>('pre > code[class*="language-"]')) {
    if (code.dataset.highlighted) continue;
    const lang = /language-([\w+#-]+)/.exec(code.className)?.[1];
    if (!lang || !hljs.getLanguage(lang)) continue;
    // highlight.js escapes the text it wraps in spans.
    code.innerHTML = hljs.highlight(code.textContent ?? '', { language: lang, ignoreIllegals: true }).value;
    code.classList.add('hljs');
    code.dataset.highlighted = 'yes';
  }
}
