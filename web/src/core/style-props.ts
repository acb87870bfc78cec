// An element directive that sets inline style properties through the CSSOM (element.style.setProperty) on
// every render, including the first. Lit's styleMap writes a style="" attribute on first render, which a page
// without style-src 'unsafe-inline' refuses; the CSSOM is not subject to that policy.
//   html`<div ${styleProps({ background: p.bg })}></div>`
import { noChange } from 'lit';
import { Directive, directive, PartType, type ElementPart, type PartInfo } from 'lit/directive.js';

class StyleProps extends Directive {
  private last = new Set<string>();
  constructor(info: PartInfo) {
    super(info);
    if (info.type !== PartType.ELEMENT)
      throw new Error('styleProps() is an element directive: <div ${styleProps({...})}>');
  }
  render(_props: Record<string, string>) {
    return noChange;
  }
  override update(part: ElementPart, [props]: [Record<string, string>]) {
    const style = (part.element as HTMLElement).style;
    for (const k of this.last) if (!(k in props)) style.removeProperty(k);
    for (const [k, v] of Object.entries(props)) style.setProperty(k, v);
    this.last = new Set(Object.keys(props));
    return noChange;
  }
}

export const styleProps = directive(StyleProps);
