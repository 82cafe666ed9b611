/**
 * Landmarks and regions the pages share. A table wider than its panel scrolls inside a
 * `ScrollRegion` (never the whole page): the region is focusable and named, so keyboard users
 * reach it with Tab and scroll it with the arrow keys, and screen readers announce what it holds.
 */
import type { Child } from "hono/jsx";

export function ScrollRegion(props: { label: string; id?: string; children?: Child }) {
  return (
    <div class="table-scroll" role="region" tabindex={0} aria-label={props.label} id={props.id}>
      {props.children}
    </div>
  );
}

/** A notice after an action, in a polite live region (screen readers read it when it appears). */
export function Notice(props: { id?: string; children?: Child }) {
  return <div class="notice" role="status" id={props.id}>{props.children}</div>;
}

/** Text for screen readers only (an empty column header's name, a hint). */
export function VisuallyHidden(props: { children?: Child }) {
  return <span class="visually-hidden">{props.children}</span>;
}

/** The header of a column of buttons: empty to the eye, "Actions" to a screen reader. */
export function ActionsHeader() {
  return (
    <th>
      <VisuallyHidden>Actions</VisuallyHidden>
    </th>
  );
}
