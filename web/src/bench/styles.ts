// The panel's styles.
import { css } from 'lit';
import { controlStyles } from '../core/control-styles.js';

export const panelStyles = [
  controlStyles,
  css`
  fieldset {
    border: 1px solid var(--ls-border, #888);
    border-radius: 6px;
    margin: 0 0 1rem;
    padding: 0.5rem 0.8rem 0.8rem;
  }
  legend {
    font-weight: 600;
    padding: 0 0.3rem;
  }
  input[aria-invalid='true'] {
    border-color: var(--ls-error, #b00020);
    outline: 1px solid var(--ls-error, #b00020);
  }
  button.primary {
    background: var(--ls-accent, #0062a0);
    border-color: var(--ls-accent, #0062a0);
    color: #fff;
  }
  button:disabled {
    opacity: 0.55;
  }
  .row {
    display: flex;
    flex-wrap: wrap;
    gap: 0.4rem 0.8rem;
    align-items: center;
    margin: 0.3rem 0;
  }
  .grow {
    flex: 1 1 22rem;
  }
  .agent {
    border-left: 4px solid var(--ls-border, #888);
    padding: 0.3rem 0.6rem;
    margin: 0.5rem 0;
  }
  .agent.ready {
    border-color: #009e73;
  }
  .agent.error,
  .agent.not-ready {
    border-color: var(--ls-error, #b00020);
  }
  .badge {
    font-size: 0.85em;
    font-weight: 600;
    border-radius: 9px;
    padding: 0 0.5rem;
    border: 1px solid currentColor;
  }
  .error,
  .problem {
    color: var(--ls-error, #b00020);
  }
  .legend {
    display: flex;
    flex-wrap: wrap;
    gap: 0.2rem 1rem;
    list-style: none;
    padding: 0;
    margin: 0.5rem 0 0;
    font-size: 0.85rem;
  }
  .legend .swatch {
    display: inline-block;
    width: 0.9rem;
    height: 0.9rem;
    border-radius: 50%;
    margin-right: 0.3rem;
    vertical-align: -0.1rem;
  }
  .legend .swatch.dashed {
    border-radius: 0;
    height: 0;
    border-top: 2px dashed currentColor;
    vertical-align: 0.25rem;
  }
  .muted {
    color: var(--ls-muted, #555);
  }
  .bar {
    height: 14px;
    border: 1px solid var(--ls-border, #888);
    border-radius: 7px;
    overflow: hidden;
    flex: 1 1 16rem;
    max-width: 28rem;
  }
  .bar > div {
    height: 100%;
    background: var(--ls-accent, #0062a0);
    transition: width 0.15s;
  }
  table {
    border-collapse: collapse;
    margin: 0.4rem 0 1rem;
    font-size: 0.9em;
  }
  th,
  td {
    border-bottom: 1px solid var(--ls-border, #bbb);
    padding: 0.15rem 0.5rem;
    text-align: right;
    vertical-align: top;
  }
  th:first-child,
  td:first-child,
  td.l,
  th.l {
    text-align: left;
  }
  .scroll {
    overflow-x: auto;
    max-width: 100%;
  }
  .plot svg {
    display: block;
    max-width: 100%;
    height: auto;
  }
  .plot .plot-scroll > svg {
    max-width: none;
  }
  .plot text,
  .plot tspan {
    white-space: pre;
  }
  .drop {
    border: 2px dashed var(--ls-border, #888);
    border-radius: 6px;
    padding: 0.8rem;
    text-align: center;
  }
  .drop.over {
    border-color: var(--ls-accent, #0062a0);
  }
  .chips button[aria-pressed='true'],
  .access-choice button[aria-pressed='true'] {
    border-color: var(--ls-accent, #0062a0);
  }
  h3 {
    margin: 1.2rem 0 0.3rem;
    font-size: 1.05rem;
  }
  .warn {
    color: #8a5a00;
  }
  .vs-ncu .check {
    white-space: nowrap;
  }
  .ok {
    color: #007a5a;
  }
  button.link[aria-pressed='true'] {
    font-weight: 700;
    background: none;
    color: var(--ls-accent, #0062a0);
  }
  button.link {
    border: none;
    padding: 0;
    text-decoration: underline;
    color: var(--ls-accent, #0062a0);
    cursor: pointer;
  }
  ol.plan {
    display: flex;
    flex-wrap: wrap;
    align-items: stretch;
    gap: 0.4rem;
    list-style: none;
    padding: 0;
    margin: 0.3rem 0 1rem;
  }
  ol.plan > li:not(.arrow) {
    display: flex;
    flex-direction: column;
    gap: 0.2rem;
    flex: 1 1 14rem;
    border: 1px solid var(--ls-border, #888);
    border-radius: 6px;
    padding: 0.4rem 0.6rem;
    overflow-wrap: anywhere;
  }
  ol.plan > li.arrow {
    align-self: center;
    font-size: 1.3rem;
  }
  h4 {
    margin: 0.8rem 0 0.2rem;
    font-size: 0.95rem;
  }
  .figure-host {
    border: 1px solid var(--ls-border, #888);
    border-radius: 6px;
    padding: 0.5rem;
  }
`,
];
