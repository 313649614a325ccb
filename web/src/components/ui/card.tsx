import { type FormEventHandler, type HTMLAttributes, type ReactNode } from 'react';

/**
 * A card: a titled block of a page (`.card`). With a `titleId` the title is the card's heading
 * (`h2.card-title`, or `headingLevel`) and names the card (`aria-labelledby`); without one the card
 * may be named by `aria-label`. `actions` sit beside the title in the card's head (`.card-head`: a
 * refresh button, a search field); `lead` is the sentence under the title (`p.muted`); with
 * `leadWithTitle` the title and the lead are one block (a `div`), beside the actions when there are
 * any. Anything else is the card's content.
 *
 * A card is a `section` unless `as` says otherwise; a form card takes the form's attributes
 * (`onSubmit`, `noValidate`).
 */
export interface CardProps extends Omit<HTMLAttributes<HTMLElement>, 'title' | 'onSubmit'> {
  as?: 'section' | 'div' | 'form' | 'aside' | 'li';
  title?: ReactNode;
  /** The title's id: the card is labelled by its title. */
  titleId?: string;
  headingLevel?: 1 | 2 | 3;
  actions?: ReactNode;
  lead?: ReactNode;
  /** The lead in small print (`p.muted.small`). */
  leadSmall?: boolean;
  /** The title and the lead as one block (a `div`): at the start of the head when there are actions. */
  leadWithTitle?: boolean;
  /** A form card's submit handler. */
  onSubmit?: FormEventHandler<HTMLFormElement>;
  noValidate?: boolean;
}

export function Card({ as: Element = 'section', title, titleId, headingLevel = 2, actions, lead, leadSmall, leadWithTitle, onSubmit, noValidate, className, children, ...rest }: CardProps) {
  const Heading = `h${headingLevel}` as const;
  const heading =
    title !== undefined ? (
      <Heading id={titleId} className="card-title">
        {title}
      </Heading>
    ) : null;
  const leadLine = lead !== undefined ? <p className={leadSmall ? 'muted small' : 'muted'}>{lead}</p> : null;
  const titleBlock = leadWithTitle ? (
    <div>
      {heading}
      {leadLine}
    </div>
  ) : (
    heading
  );
  const head =
    actions === undefined ? (
      titleBlock
    ) : (
      <div className="card-head">
        {titleBlock}
        {actions}
      </div>
    );
  const props = { className: className ? `card ${className}` : 'card', 'aria-labelledby': titleId, ...rest };
  const content = (
    <>
      {head}
      {leadWithTitle ? null : leadLine}
      {children}
    </>
  );
  if (Element === 'form') {
    return (
      <form {...props} onSubmit={onSubmit} noValidate={noValidate}>
        {content}
      </form>
    );
  }
  return <Element {...props}>{content}</Element>;
}
