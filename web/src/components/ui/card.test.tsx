import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';

import { Card } from '@/components/ui/card';

/** The card renders the markup every page wrote by hand before it (issue 52): the same elements, classes and names. */
describe('Card', () => {
  const html = (node: ReactElement) => render(node).container.innerHTML;

  it('a titled section named by its title, with a lead and content', () => {
    expect(
      html(
        <Card title="Plan" titleId="plan-title" lead="What you may do">
          <p>body</p>
        </Card>,
      ),
    ).toBe('<section class="card" aria-labelledby="plan-title"><h2 id="plan-title" class="card-title">Plan</h2><p class="muted">What you may do</p><p>body</p></section>');
  });

  it('actions beside the title in the head, the lead under it in small print', () => {
    expect(
      html(
        <Card className="audit-log" title="Log" titleId="t" headingLevel={3} actions={<button>CSV</button>} lead="Intro" leadSmall>
          x
        </Card>,
      ),
    ).toBe('<section class="card audit-log" aria-labelledby="t"><div class="card-head"><h3 id="t" class="card-title">Log</h3><button>CSV</button></div><p class="muted small">Intro</p>x</section>');
  });

  it('the title and lead as one block, beside the actions or alone', () => {
    expect(html(<Card title="Q" titleId="q" lead="help" leadSmall leadWithTitle actions={<div className="search" />} />)).toBe(
      '<section class="card" aria-labelledby="q"><div class="card-head"><div><h2 id="q" class="card-title">Q</h2><p class="muted small">help</p></div><div class="search"></div></div></section>',
    );
    expect(html(<Card id="upgrade" title="U" titleId="u" lead="l" leadWithTitle />)).toBe(
      '<section class="card" aria-labelledby="u" id="upgrade"><div><h2 id="u" class="card-title">U</h2><p class="muted">l</p></div></section>',
    );
  });

  it('named by aria-label, or a plain card of another element', () => {
    expect(html(<Card title="Sites" aria-label="Sites" />)).toBe('<section class="card" aria-label="Sites"><h2 class="card-title">Sites</h2></section>');
    expect(html(<Card as="div">x</Card>)).toBe('<div class="card">x</div>');
    expect(html(<Card as="li" className="plan" aria-labelledby="p" />)).toBe('<li class="card plan" aria-labelledby="p"></li>');
    expect(html(<Card as="form" className="filters" aria-label="Filters" noValidate />)).toBe('<form class="card filters" aria-label="Filters" novalidate=""></form>');
  });
});
