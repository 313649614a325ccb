import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { AppProvider } from '@/app/provider';
import { parseCatalog, type EquipmentEntry } from '@/features/ppe/api/equipment-catalog';
import { Pictogram, PICTOGRAM_KINDS, pictogramKindFor } from '@/features/ppe/components/pictograms';
import { PpeGallery } from '@/features/ppe/components/ppe-gallery';
import { renderApp, testQueryClient } from '@/testing/render';

const ENTRIES: EquipmentEntry[] = [
  { code: 'pic2', category: 'gloves', title: { tr: 'Yalıtkan eldiven', en: 'Insulating gloves' }, description: { tr: 'Sınıf 0', en: 'Class 0' } },
  { code: 'PIC1', category: 'head', title: { tr: 'Baret', en: 'Safety helmet' } },
  { code: 'pic9', category: 'mystery', title: { tr: 'Bilinmeyen', en: 'Unknown thing' } },
];

describe('PPE gallery', () => {
  it('shows the family, title, description, a pictogram by lowercase code and the missing-image placeholder otherwise; no internal code', () => {
    render(
      <AppProvider queryClient={testQueryClient()}>
        <MemoryRouter>
          <PpeGallery entries={parseCatalog(ENTRIES)} />
        </MemoryRouter>
      </AppProvider>,
    );
    const cards = screen.getAllByRole('listitem');
    expect(cards.map((c) => within(c).getByRole('heading').textContent)).toEqual(['Baret', 'Yalıtkan eldiven', 'Bilinmeyen']);
    expect(within(cards[0]!).getByRole('img', { name: 'Baret' })).toHaveAttribute('data-kind', 'helmet');
    expect(within(cards[1]!).getByRole('img', { name: 'Yalıtkan eldiven' })).toHaveAttribute('data-kind', 'gloves');
    expect(within(cards[1]!).getByText('Sınıf 0')).toBeInTheDocument();
    expect(within(cards[2]!).getByRole('img', { name: 'Görsel bulunmuyor' })).toBeInTheDocument();
    expect(within(cards[0]!).getByText('Baş koruma')).toBeInTheDocument();
    expect(screen.queryByText(/^pic\d+$/i)).not.toBeInTheDocument();
  });

  it('maps every equipment family to its pictogram', () => {
    const cases: [string, string][] = [
      ['helmet', 'helmet'],
      ['hearing', 'earMuffs'],
      ['eye', 'glasses'],
      ['face', 'faceShield'],
      ['gloves', 'gloves'],
      ['arc clothing', 'arcSuit'],
      ['boots', 'boots'],
      ['harness', 'harness'],
      ['lanyard', 'lanyard'],
      ['voltage tester', 'tester'],
      ['insulating mat', 'mat'],
      ['high visibility vest', 'vest'],
    ];
    for (const [category, kind] of cases) expect(pictogramKindFor({ category })).toBe(kind);
    expect(pictogramKindFor({ category: 'protective wear' })).not.toBe('earMuffs');
    expect(PICTOGRAM_KINDS.length).toBeGreaterThanOrEqual(12);
  });

  it('draws every pictogram kind differently (a new kind cannot reuse another kind\'s drawing)', () => {
    const drawings = PICTOGRAM_KINDS.map((kind) => {
      const { container, unmount } = render(<Pictogram kind={kind} label={kind} />);
      const inner = container.querySelector('svg')!.innerHTML;
      unmount();
      return inner;
    });
    expect(drawings.every((inner) => inner.length > 0)).toBe(true);
    expect(new Set(drawings).size).toBe(PICTOGRAM_KINDS.length);
  });

  it('drops malformed catalogue entries', () => {
    expect(parseCatalog([{ code: 'pic1' }, null, ...ENTRIES]).map((e) => e.code)).toEqual(['PIC1', 'pic2', 'pic9']);
    expect(parseCatalog(undefined)).toEqual([]);
  });
});

describe('the real equipment catalogue', () => {
  it('is imported at build time and every entry gets a pictogram', async () => {
    const { equipmentCatalog } = await import('@/features/ppe/api/equipment-catalog');
    if (equipmentCatalog.length === 0) return; // catalogue not written yet
    const { buildPictogramIndex } = await import('@/features/ppe/components/ppe-gallery');
    const index = buildPictogramIndex(equipmentCatalog);
    expect(equipmentCatalog.filter((e) => !index.has(e.code.toLowerCase())).map((e) => e.code)).toEqual([]);
    const look = (code: string) => JSON.stringify(index.get(code));
    expect(new Set([...index.values()].map((spec) => JSON.stringify(spec))).size).toBeGreaterThanOrEqual(28);
    // ear plugs are not ear muffs; every kind of glove looks different; so do the helmets
    expect(look('pic4')).not.toBe(look('pic5'));
    const gloves = equipmentCatalog.filter((e) => e.category === 'hands').map((e) => look(e.code.toLowerCase()));
    expect(gloves.length).toBe(5);
    expect(new Set(gloves).size).toBe(5);
    expect(new Set(['pic1', 'pic2', 'pic3', 'pic11'].map(look)).size).toBe(4);
    // arc-rated shirt, trousers and coverall, the arc flash suit and welding clothing: five different pictures
    const arc = ['pic17', 'pic19', 'pic20', 'pic21', 'pic22'];
    expect(equipmentCatalog.filter((e) => e.category === 'arc_clothing').map((e) => e.code.toLowerCase())).toEqual(arc);
    expect(new Set(arc.map(look)).size).toBe(5);
    expect(arc.slice(0, 3).map((code) => index.get(code)?.kind)).toEqual(['arcShirt', 'arcTrousers', 'arcCoverall']);
  });

  it('filters the gallery by category, with translated category names', async () => {
    const { equipmentCatalog } = await import('@/features/ppe/api/equipment-catalog');
    if (equipmentCatalog.length === 0) return;
    renderApp('/ppe-equipment');
    const filter = await screen.findByRole('combobox', { name: 'Kategori' });
    const grid = screen.getByRole('list', { name: "Baret'in kontrol ettiği KKD ekipmanları" });
    expect(within(grid).getAllByRole('listitem')).toHaveLength(equipmentCatalog.length);
    await userEvent.setup().selectOptions(filter, 'Eldivenler (5)');
    const gloves = screen.getByRole('list', { name: 'Eldivenler' });
    expect(within(gloves).getAllByRole('listitem')).toHaveLength(5);
    expect(new Set(within(gloves).getAllByRole('img').map((img) => `${img.getAttribute('data-kind')}:${img.getAttribute('data-mark') ?? ''}`)).size).toBe(5);
  });
});
