import { screen, waitFor } from '@testing-library/react';

/** jsdom does not lay out SVG, and the graph measures its nodes. */
export function stubSvgLayout() {
  Object.defineProperty(window.SVGElement.prototype, 'getBBox', {
    configurable: true,
    value: () => ({ x: 0, y: 0, width: 100, height: 30 }),
  });
}

/** What each drawn node says: its name, then its status word if any. */
export function drawnNodes(): string[] {
  return screen
    .queryAllByTestId('node')
    .map(node =>
      Array.from(node.querySelectorAll('text'))
        .map(text => text.textContent)
        .join(': '),
    )
    .sort();
}

/**
 * Waits until the graph draws what is expected: the graph lays out in
 * debounced steps, which take long on a busy machine.
 */
export async function untilDrawn(expectation: (nodes: string[]) => void) {
  await waitFor(() => expectation(drawnNodes()), { timeout: 10_000 });
}
