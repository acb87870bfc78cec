// The example docs page's own script (a docs theme would have one like it): a light/dark switch, and the
// iframe side of embed.html: size each frame to the height it reports, and pass the theme on.
const root = document.documentElement;
const button = document.getElementById('scheme');
const frames = () => [...document.querySelectorAll('iframe.ls-frame')];

function setScheme(dark) {
  root.dataset.theme = dark ? 'dark' : 'light';
  button.setAttribute('aria-pressed', String(dark));
  button.textContent = dark ? 'Light mode' : 'Dark mode';
  for (const f of frames()) f.contentWindow?.postMessage({ type: 'layoutscope:theme', theme: root.dataset.theme }, location.origin);
}
button.addEventListener('click', () => setScheme(root.dataset.theme !== 'dark'));
setScheme(window.matchMedia('(prefers-color-scheme: dark)').matches);

window.addEventListener('message', (e) => {
  if (e.origin !== location.origin || e.data?.type !== 'layoutscope:height') return;
  const frame = frames().find((f) => f.contentWindow === e.source);
  if (frame && Number.isFinite(e.data.height)) frame.style.height = `${Math.min(4000, Math.max(80, e.data.height))}px`;
});
for (const f of frames()) f.addEventListener('load', () => f.contentWindow?.postMessage({ type: 'layoutscope:theme', theme: root.dataset.theme }, location.origin));
