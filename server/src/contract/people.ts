import { z } from 'zod';
import { dateTime } from './common';

export const person = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: dateTime,
    updated_at: dateTime,
    speech_sample_transcripts: z.array(z.string()),
  })
  .meta({ id: 'Person' });

export const peopleList = z.object({ people: z.array(person) });

const name = z.string().trim().min(2).max(40);
export const createPersonBody = z.strictObject({ name });
export const updatePersonBody = z.strictObject({ name: name.optional() });
