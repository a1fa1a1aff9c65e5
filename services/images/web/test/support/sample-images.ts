import sharp from 'sharp';

/** Real pictures for the browser tests (and so for the README's screenshots): landscapes drawn as SVG, encoded by sharp. */
export type Scene = 'sunset' | 'lake' | 'forest' | 'city' | 'desert' | 'aurora' | 'screenshot' | 'flowers';

function svgOf(scene: Scene, width: number, height: number): string {
  const w = width;
  const h = height;
  const sky = (top: string, bottom: string) =>
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="${bottom}"/></linearGradient></defs><rect width="${w}" height="${h}" fill="url(#sky)"/>`;
  const hills = (color: string, base: number, amplitude: number, phase: number) => {
    const points: string[] = [`0,${h}`];
    for (let x = 0; x <= w; x += w / 12) points.push(`${x.toFixed(0)},${(h * base - Math.sin(x / (w / 6) + phase) * h * amplitude - Math.cos(x / (w / 2.5) + phase) * h * amplitude * 0.6).toFixed(0)}`);
    points.push(`${w},${h}`);
    return `<polygon points="${points.join(' ')}" fill="${color}"/>`;
  };
  const body = (() => {
    switch (scene) {
      case 'sunset':
        return `${sky('#2b1055', '#ff8a5b')}<circle cx="${w * 0.62}" cy="${h * 0.62}" r="${h * 0.16}" fill="#ffd36e"/>${hills('#6b2d5c', 0.72, 0.06, 0)}${hills('#3b1c47', 0.82, 0.05, 2)}${hills('#1d0f2a', 0.92, 0.03, 4)}`;
      case 'lake':
        return `${sky('#7ec8f2', '#dff3ff')}${hills('#4c7a5a', 0.55, 0.08, 1)}${hills('#2f5d45', 0.6, 0.05, 3)}<rect y="${h * 0.62}" width="${w}" height="${h * 0.38}" fill="#3a8fc1"/><rect y="${h * 0.7}" width="${w}" height="${h * 0.02}" fill="#8fd0f0" opacity="0.5"/><rect y="${h * 0.8}" width="${w}" height="${h * 0.015}" fill="#8fd0f0" opacity="0.4"/>`;
      case 'forest': {
        let trees = '';
        for (let i = 0; i < 14; i++) {
          const x = (i / 13) * w;
          const t = h * (0.45 + (i % 3) * 0.06);
          trees += `<polygon points="${x - w * 0.05},${h * 0.9} ${x},${t} ${x + w * 0.05},${h * 0.9}" fill="${i % 2 ? '#1f5f3a' : '#2e7d4f'}"/>`;
        }
        return `${sky('#cfe9d9', '#f4fbf6')}${hills('#9cc9a8', 0.6, 0.05, 2)}${trees}<rect y="${h * 0.88}" width="${w}" height="${h * 0.12}" fill="#264d34"/>`;
      }
      case 'city': {
        let towers = '';
        for (let i = 0; i < 11; i++) {
          const bw = w / 11;
          const th = h * (0.3 + ((i * 37) % 50) / 100);
          towers += `<rect x="${i * bw + 3}" y="${h - th}" width="${bw - 6}" height="${th}" fill="${i % 2 ? '#1e2a4a' : '#27365e'}"/>`;
          for (let y = h - th + 12; y < h - 10; y += 22) towers += `<rect x="${i * bw + 12}" y="${y}" width="${bw / 5}" height="8" fill="#ffd66b" opacity="${(i + y) % 3 ? 0.85 : 0.25}"/>`;
        }
        return `${sky('#0b1026', '#3b2e6e')}<circle cx="${w * 0.8}" cy="${h * 0.18}" r="${h * 0.07}" fill="#f5f1d0"/>${towers}`;
      }
      case 'desert':
        return `${sky('#f6c177', '#fde6c4')}<circle cx="${w * 0.3}" cy="${h * 0.3}" r="${h * 0.1}" fill="#fff4d6"/>${hills('#e0a458', 0.7, 0.07, 1)}${hills('#c97b3c', 0.82, 0.05, 3)}`;
      case 'aurora':
        return `${sky('#020617', '#0f3b4c')}<path d="M0 ${h * 0.45} C ${w * 0.3} ${h * 0.1}, ${w * 0.6} ${h * 0.6}, ${w} ${h * 0.2}" stroke="#34d399" stroke-width="${h * 0.08}" fill="none" opacity="0.6"/><path d="M0 ${h * 0.35} C ${w * 0.35} ${h * 0.05}, ${w * 0.65} ${h * 0.5}, ${w} ${h * 0.1}" stroke="#a78bfa" stroke-width="${h * 0.04}" fill="none" opacity="0.5"/>${hills('#0b1f2a', 0.85, 0.05, 2)}`;
      case 'flowers': {
        let petals = '';
        for (let i = 0; i < 9; i++) {
          const cx = w * (0.1 + (i % 5) * 0.2);
          const cy = h * (0.3 + Math.floor(i / 5) * 0.35);
          const color = ['#f472b6', '#fb7185', '#facc15', '#c084fc'][i % 4];
          petals += `<circle cx="${cx}" cy="${cy}" r="${h * 0.09}" fill="${color}"/><circle cx="${cx}" cy="${cy}" r="${h * 0.03}" fill="#fff7ae"/>`;
        }
        return `<rect width="${w}" height="${h}" fill="#dcfce7"/>${petals}`;
      }
      case 'screenshot':
        return `<rect width="${w}" height="${h}" fill="#f1f5f9"/><rect width="${w}" height="${h * 0.1}" fill="#334155"/><circle cx="${h * 0.05}" cy="${h * 0.05}" r="${h * 0.018}" fill="#f87171"/><circle cx="${h * 0.1}" cy="${h * 0.05}" r="${h * 0.018}" fill="#fbbf24"/><circle cx="${h * 0.15}" cy="${h * 0.05}" r="${h * 0.018}" fill="#4ade80"/><rect x="${w * 0.05}" y="${h * 0.18}" width="${w * 0.25}" height="${h * 0.72}" rx="8" fill="#e2e8f0"/><rect x="${w * 0.35}" y="${h * 0.18}" width="${w * 0.6}" height="${h * 0.3}" rx="8" fill="#6366f1"/><rect x="${w * 0.35}" y="${h * 0.53}" width="${w * 0.28}" height="${h * 0.37}" rx="8" fill="#cbd5e1"/><rect x="${w * 0.67}" y="${h * 0.53}" width="${w * 0.28}" height="${h * 0.37}" rx="8" fill="#cbd5e1"/>`;
    }
  })();
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`;
}

let samplesMade = 0;

/**
 * A picture of `scene`. Each call's bytes are its own (an EXIF description numbers it, which the
 * service strips on storage): the service answers a user's repeat upload of the same bytes with the
 * image it already stored (deduplication), and the suites mean each sample as a new picture.
 */
export async function sampleImage(scene: Scene, format: 'jpeg' | 'png' | 'webp' = 'jpeg', width = 960, height = 640): Promise<Buffer> {
  samplesMade += 1;
  const image = sharp(Buffer.from(svgOf(scene, width, height))).withExif({ IFD0: { ImageDescription: `sample ${samplesMade} of ${process.pid}` } });
  if (format === 'png') return image.png().toBuffer();
  if (format === 'webp') return image.webp({ quality: 82 }).toBuffer();
  return image.jpeg({ quality: 85 }).toBuffer();
}
