// The words of a file button drawn by the page (the browser's own <input type=file> speaks the browser's
// language, not the page's): [en, zh] per key.
export const FILE_BUTTON_TEXT = {
  choose: ['Choose a file…', '选择文件…'],
  none: ['no file chosen', '未选择文件'],
} as const;

export function fileButtonText(key: keyof typeof FILE_BUTTON_TEXT, zh: boolean): string {
  return FILE_BUTTON_TEXT[key][zh ? 1 : 0];
}
