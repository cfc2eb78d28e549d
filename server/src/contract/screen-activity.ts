import { z } from 'zod';
import { dateBound, dateTime, instant, limitParam } from './common';
import { cursorPageOf, cursorParam } from './cursor';

export const screenActivityRecord = z
  .object({
    id: z.string(),
    timestamp: dateTime,
    app_name: z.string(),
    window_title: z.string(),
    ocr_text: z.string(),
  })
  .meta({ id: 'ScreenActivity' });

export const listScreenActivityQuery = z.object({
  start_date: dateBound('start').optional(),
  end_date: dateBound('end').optional(),
  app: z.string().min(1).optional().meta({ description: 'Exact, case-sensitive app name' }),
  limit: limitParam(1000, 100),
  cursor: cursorParam(),
});

export const screenActivityPage = cursorPageOf('screen_activity', screenActivityRecord);

export const createScreenActivityBody = z.strictObject({
  screen_activity: z
    .array(
      z.strictObject({
        timestamp: instant,
        app_name: z.string().min(1).max(200),
        window_title: z.string().max(1000).default(''),
        ocr_text: z.string().max(1000).default(''),
      }),
    )
    .min(1)
    .max(1000),
});

export const createScreenActivityResponse = z.object({ created_count: z.number().int() });
