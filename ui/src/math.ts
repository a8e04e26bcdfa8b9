// Math typesetting, loaded with the first page that has a formula: KaTeX (the chunk mermaid
// loads too) and its stylesheet (fonts as woff2 only, see vite.config.ts).
import 'katex/dist/katex.min.css';

/** Typesets the TeX in each element (`span.math.math-inline` or `.math-display`) in place; a bad formula shows as an error, not a throw. */
export async function renderMath(elements: HTMLElement[]) {
  const { default: katex } = await import('katex');
  for (const el of elements) {
    const tex = el.textContent ?? '';
    katex.render(tex, el, { displayMode: el.classList.contains('math-display'), throwOnError: false, output: 'htmlAndMathml' });
    el.dataset.typeset = 'yes';
    el.setAttribute('data-tex', tex);
  }
}
