// The zone every time on the page is written in (ui/src/time-format.ts), provided by the shell
// (app.tsx) from the header's choice, so a change re-renders every view that writes a time.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { TimeZone } from './time-format';

export const TimeZoneContext = createContext<TimeZone>(undefined);

export function useTimeZone(): TimeZone {
  return useContext(TimeZoneContext);
}
