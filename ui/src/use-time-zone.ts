// The zone every time on the page is written in (ui/src/time-format.ts), provided by the shell
// (app.tsx) from the header's choice, so a change re-renders every view that writes a time.
import { createContext } from 'preact';
import { useContext, useState } from 'preact/hooks';
import { textInZone, type TimeZone, type ZonedText } from './time-format';

export const TimeZoneContext = createContext<TimeZone>(undefined);

export function useTimeZone(): TimeZone {
  return useContext(TimeZoneContext);
}

/**
 * A `datetime-local` field's text that follows the page's zone: what is typed is kept with the
 * zone it was typed in, and after a switch shown as the same instant in the new zone, in the same
 * render as the label that names the zone.
 */
export function useZonedText(initial: (zone: TimeZone) => string): [string, (text: string) => void] {
  const zone = useTimeZone();
  const [typed, setTyped] = useState<ZonedText>(() => ({ text: initial(zone), zone }));
  return [textInZone(typed, zone), (text: string) => setTyped({ text, zone })];
}
