// The figure a page knows to be in view when it loads (the one at the top, or the one it scrolled to). Without
// one, the first figure to get the engine is drawn at once when it is in view, which asks the browser where it is
// (a layout of the whole page before anything is drawn); with one, that figure is drawn at once, unasked, and
// every other waits until it comes into view or the page is idle, whichever figure's code ran first.
//
//   showFirst(document.querySelector('ls-tile-layout')!);   // the page's entry, before the figures' code runs
let first: Element | null = null;

export function showFirst(el: Element) {
  first = el;
}

export function shownFirst(): Element | null {
  return first;
}
