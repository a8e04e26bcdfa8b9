// Mermaid diagrams, loaded with the first page that has one. The diagram's source stays in the
// page as its text alternative; the drawing is in the theme's light or dark palette.
import mermaid from 'mermaid';

let count = 0;
let theme = '';

/** Draws the mermaid source in `pre.mermaid` as SVG in place; a source that does not parse stays as text, with the error. */
export async function drawDiagram(el: HTMLElement) {
  const dark = document.documentElement.dataset.theme === 'dark';
  const wanted = dark ? 'dark' : 'default';
  if (theme !== wanted) {
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: wanted });
    theme = wanted;
  }
  const source = el.textContent ?? '';
  try {
    const { svg } = await mermaid.render(`quire-diagram-${++count}`, source);
    const figure = document.createElement('figure');
    figure.className = 'diagram';
    figure.setAttribute('role', 'img');
    figure.setAttribute('aria-label', `Diagram: ${source.trim().split('\n')[0]}`);
    figure.innerHTML = svg;
    figure.dataset.drawn = 'yes';
    el.replaceWith(figure);
  } catch (e) {
    el.dataset.drawn = 'failed';
    el.title = `Diagram not drawn: ${e instanceof Error ? e.message : String(e)}`;
    document.getElementById(`dquire-diagram-${count}`)?.remove();
  }
}
