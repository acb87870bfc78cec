// The form controls of the figures and the benchmark panel: they inherit the host's font and colour and take
// the theme's border, so an embedded figure matches the page around it.
import { css } from 'lit';

export const controlStyles = css`
  button,
  select,
  input {
    font: inherit;
    color: inherit;
    background: var(--ls-control-bg, transparent);
    border: 1px solid var(--ls-border, #888);
    border-radius: 4px;
    padding: 0.15rem 0.5rem;
  }
`;
