// The <ls-*> elements in React's JSX (React 18.3+ and 19, whose JSX namespace is React.JSX):
//
//   import 'layoutscope-elements';
//   import type {} from 'layoutscope-elements/react';
//   export const Fig = () => <ls-fragment layout="S[(8,4,2):(4@laneid,1@laneid,1@reg)]" shape="8,8" />;
//
// React 19 passes the attributes to the custom element as they are; `ref` gives the element (its properties are
// the ones of layoutscope.d.ts). `className` is React's name for the class attribute.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { LsElementAttributes } from './layoutscope.js';

type LsJsx<Tag extends keyof LsElementAttributes & keyof HTMLElementTagNameMap> = Omit<
  DetailedHTMLProps<HTMLAttributes<HTMLElementTagNameMap[Tag]>, HTMLElementTagNameMap[Tag]>,
  Exclude<keyof LsElementAttributes[Tag], 'class' | 'style'>
> &
  Omit<LsElementAttributes[Tag], 'class' | 'style'>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'ls-tile-layout': LsJsx<'ls-tile-layout'>;
      'ls-fragment': LsJsx<'ls-fragment'>;
      'ls-tmem': LsJsx<'ls-tmem'>;
      'ls-scale-factors': LsJsx<'ls-scale-factors'>;
      'ls-mesh': LsJsx<'ls-mesh'>;
      'ls-bank-conflicts': LsJsx<'ls-bank-conflicts'>;
      'ls-swizzle-atom': LsJsx<'ls-swizzle-atom'>;
      'ls-playground': LsJsx<'ls-playground'>;
      'ls-advisor': LsJsx<'ls-advisor'>;
      'ls-tcgen05-atom': LsJsx<'ls-tcgen05-atom'>;
      'ls-block-scaled': LsJsx<'ls-block-scaled'>;
    }
  }
}
