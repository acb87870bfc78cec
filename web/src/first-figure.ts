// The figure a page knows to be in view when it loads (the one at the top, or the one it scrolled to): the first
// figure to get the engine is drawn at once when it is in view, and a figure named here is not asked where it is,
// which would make the browser lay out the whole page before that figure is drawn.
//
//   shownFirst.add(document.querySelector('ls-tile-layout')!);   // the page's entry, before the figure's code
export const shownFirst = new WeakSet<Element>();
