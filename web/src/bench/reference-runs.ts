/** The H200 runs committed in docs/results/ that the build copies to dist/results/ (vite.config.ts) and the
 * benchmark panel's "H200 reference runs" button opens: agent result documents, so they load like any export. */
export const REFERENCE_RUNS = [
  'h200-transpose.json',
  'h200-aos_soa.json',
  'h200-profile-transpose.json',
  'h200-profile-aos_soa.json',
];

/** The peers' times on the same H200 for the conversion suite (PyTorch eager, torch.compile, CuPy; written by
 * bench/peers/convert_peers.py), copied to dist/results/ too: the convert plot draws them beside a suite run. */
export const PEER_RUNS = ['h200-convert-peers.json'];
