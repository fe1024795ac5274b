import {
  createContext,
  ReactNode,
  useContext,
  useEffect,
  useState,
} from 'react';
import { formatRelative } from '../../format/relativeTime';
import { formatTimestamp } from './format';

const NowContext = createContext<number | undefined>(undefined);

/** How often relative times ("2 minutes ago") are recomputed. */
const TICK_MS = 15_000;

/** One clock for every relative time of the tab, instead of a timer per cell. */
export function NowProvider(props: { children: ReactNode }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <NowContext.Provider value={now}>{props.children}</NowContext.Provider>
  );
}

/** The tab's clock (now, when outside a {@link NowProvider}). */
export function useNow(): number {
  return useContext(NowContext) ?? Date.now();
}

/** A relative time with the absolute one as its tooltip, in a `<time>` element. */
export function RelativeTime(props: {
  value: string | number | undefined;
  /** Shown without a time. */
  fallback?: string;
}) {
  const contextNow = useContext(NowContext);
  const { value, fallback = 'never' } = props;
  const ms = value === undefined ? NaN : new Date(value).getTime();
  if (!Number.isFinite(ms)) {
    return <span>{fallback}</span>;
  }
  const iso = new Date(ms).toISOString();
  // Never show "in 2 seconds" for a run the server's clock put a bit ahead.
  const now = Math.max(contextNow ?? Date.now(), ms);
  return (
    <time dateTime={iso} title={formatTimestamp(value)}>
      {formatRelative(value, now)}
    </time>
  );
}
