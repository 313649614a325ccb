import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';

const texts = {
  tr: { tagline: 'Analiz Et, İzle, Koru', body: 'Saha videolarında kişisel koruyucu donanım kontrolü.' },
  en: { tagline: 'Analyze, Monitor, Protect', body: 'Personal protective equipment checks in field-work videos.' },
} as const;

function App() {
  const [lang, setLang] = useState<'tr' | 'en'>('tr');
  const t = texts[lang];
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 32, color: '#e2e8f0', background: '#0f172a', minHeight: '100vh' }}>
      <h1>Baret</h1>
      <p>{t.tagline}</p>
      <p>{t.body}</p>
      <button type="button" onClick={() => setLang(lang === 'tr' ? 'en' : 'tr')}>{lang === 'tr' ? 'EN' : 'TR'}</button>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
