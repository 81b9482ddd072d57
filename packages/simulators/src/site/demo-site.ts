import type { SiteOptions } from './site-server.ts';

const svg = (body: string, w = 64, h = 64) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>\n`;

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title} · Northwind Coffee</title>
  <link rel="icon" href="/favicon.svg">
  <link rel="stylesheet" href="/assets/css/site.css">
  <script src="/assets/js/menu.js" defer></script>
</head>
<body>
  <header class="top">
    <a href="/"><img src="/assets/img/logo.svg" alt="Northwind Coffee" width="40" height="40"></a>
    <nav><a href="/">Home</a> <a href="/menu/">Menu</a> <a href="/blog/">Blog</a> <a href="/about">About</a>
    <a href="https://maps.example.org/northwind">Find us</a></nav>
  </header>
  <main>
${body}
  </main>
  <footer>© Northwind Coffee · <a href="/contact.html">Contact</a></footer>
</body>
</html>
`;

/**
 * The demo's sample site to parse (served on loopback by demo mode): a few pages in folders, CSS with `@import`
 * and `url()`, a script, SVG images with a `srcset`, a favicon, and one link to a page that is gone, so a parse
 * shows every kind of file and a failed URL.
 */
export function demoSiteRoutes(): SiteOptions['routes'] {
  return {
    '/': {
      body: layout(
        'Home',
        `    <section class="hero"><h1>Fresh roasted, every morning</h1>
    <p>Single-origin beans, roasted in small batches. See the <a href="/menu/">menu</a> or read the <a href="/blog/">blog</a>.</p></section>
    <img class="wide" src="/assets/img/beans.svg" srcset="/assets/img/beans.svg 1x, /assets/img/beans-2x.svg 2x" alt="Beans">`,
      ),
    },
    '/menu/': {
      body: layout(
        'Menu',
        `    <h1>Menu</h1>
    <ul class="menu"><li>Espresso <span>2.50</span></li><li>Flat white <span>3.40</span></li><li>Filter <span>2.90</span></li></ul>
    <p><a href="/menu/seasonal.html">Seasonal specials</a></p>`,
      ),
    },
    '/menu/seasonal.html': {
      body: layout(
        'Seasonal',
        '    <h1>Seasonal</h1><p>Cardamom latte, cold brew tonic.</p><img src="../assets/img/cup.svg" alt="">',
      ),
    },
    '/blog/': {
      body: layout(
        'Blog',
        `    <h1>Blog</h1>
    <article><h2><a href="/blog/2026/origin-trip.html">Our trip to the origin</a></h2></article>
    <article><h2><a href="/blog/2026/brewing-guide.html">A brewing guide</a></h2></article>
    <article><h2><a href="/blog/2025/old-post.html">An old post (removed)</a></h2></article>`,
      ),
    },
    '/blog/2026/origin-trip.html': {
      body: layout(
        'Origin trip',
        '    <h1>Our trip to the origin</h1><p>Hills, rain and ripe cherries.</p><img src="/assets/img/cup.svg" alt="">',
      ),
    },
    '/blog/2026/brewing-guide.html': {
      body: layout(
        'Brewing guide',
        '    <h1>A brewing guide</h1><p>Grind, bloom, pour, wait.</p><p><a href="../../menu/">Back to the menu</a></p>',
      ),
    },
    '/about': { body: layout('About', '    <h1>About</h1><p>Since 2009 on the corner of Elm and 3rd.</p>') },
    '/contact.html': { body: layout('Contact', '    <h1>Contact</h1><p>hello@northwind.example</p>') },
    '/assets/css/site.css': {
      body: `@import "fonts.css";
body { margin: 0; font-family: "Demo Sans", system-ui, sans-serif; color: #2b2118; background: #fdf8f3; }
.top { display: flex; gap: 1rem; align-items: center; padding: 1rem 2rem; background: #4a2f1d url("../img/stripes.svg") repeat-x; }
.top a { color: #fff; }
main { max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.6; }
.hero { padding: 2rem; border-radius: .5rem; background: url(../img/hero-bg.svg) center / cover; }
img.wide { width: 100%; }
footer { text-align: center; padding: 2rem; color: #7a6656; }
`,
    },
    '/assets/css/fonts.css': {
      body: `@font-face { font-family: "Demo Sans"; src: url("/assets/fonts/demo-sans.woff2") format("woff2"); }\n`,
    },
    '/assets/fonts/demo-sans.woff2': { body: Buffer.from('wOF2 demo font placeholder bytes') },
    '/assets/js/menu.js': { body: `document.documentElement.classList.add('js');\n` },
    '/favicon.svg': { body: svg('<circle cx="32" cy="32" r="30" fill="#4a2f1d"/>') },
    '/assets/img/logo.svg': {
      body: svg(
        '<circle cx="32" cy="32" r="30" fill="#fff"/><ellipse cx="32" cy="32" rx="12" ry="18" fill="#4a2f1d"/>',
      ),
    },
    '/assets/img/beans.svg': { body: svg('<rect width="800" height="200" fill="#c8a27c"/>', 800, 200) },
    '/assets/img/beans-2x.svg': { body: svg('<rect width="1600" height="400" fill="#c8a27c"/>', 1600, 400) },
    '/assets/img/cup.svg': { body: svg('<rect x="12" y="20" width="32" height="30" rx="6" fill="#7a4a2a"/>') },
    '/assets/img/stripes.svg': { body: svg('<path d="M0 64L64 0" stroke="#5b3a24" stroke-width="8"/>') },
    '/assets/img/hero-bg.svg': { body: svg('<rect width="800" height="300" fill="#f1e3d3"/>', 800, 300) },
  };
}
