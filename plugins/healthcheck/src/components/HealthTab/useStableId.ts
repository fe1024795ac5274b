import { useState } from 'react';

let counter = 0;

/**
 * An id unique in the page for `aria-*` references; `useId` needs React 18
 * and the plugin also supports React 16 and 17.
 */
export function useStableId(prefix: string): string {
  const [id] = useState(() => {
    counter += 1;
    return `${prefix}-${counter}`;
  });
  return id;
}
