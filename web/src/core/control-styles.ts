// What the figures and the benchmark panel share in their shadow styles: the host's font and colour, form controls
// that inherit them and take the theme's border (so an embedded figure matches the page around it), pressed
// toggles in the accent colour, and monospace text.
import { css } from 'lit';

export const controlStyles = css`
  :host {
    display: block;
    color: var(--ls-fg, inherit);
    font: 14px/1.45 system-ui, 'Noto Sans CJK SC', sans-serif;
  }
  button,
  select,
  input {
    font: inherit;
    color: inherit;
    background: var(--ls-control-bg, transparent);
    border: 1px solid var(--ls-border, #888);
    border-radius: 4px;
    padding: 0.15rem 0.5rem;
    /* a tap target of at least 24 px, and never wider than a phone's column */
    min-height: 24px;
    max-width: 100%;
    min-width: 0;
    box-sizing: border-box;
  }
  input[type='checkbox'],
  input[type='radio'] {
    width: 24px;
    height: 24px;
    margin: 0 0.2rem 0 0;
    vertical-align: middle;
  }
  label {
    max-width: 100%;
  }
  label > input:not([type='checkbox']):not([type='radio']) {
    flex: 1 1 auto;
  }
  fieldset {
    min-width: 0;
  }
  button[aria-pressed='true'] {
    background: var(--ls-accent, #0062a0);
    color: #fff;
  }
  .mono,
  code {
    font-family: ui-monospace, 'DejaVu Sans Mono', monospace;
    font-size: 0.92em;
  }
`;
