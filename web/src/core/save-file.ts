// Saves a file through a temporary link: a data: URL (the PNG export) as it is, a Blob through an object URL that
// is revoked 10 s later. The figures' exports and the benchmark panel's both go through here.
export function saveFile(name: string, content: Blob | string): void {
  const href = typeof content === 'string' ? content : URL.createObjectURL(content);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  if (typeof content !== 'string') setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
