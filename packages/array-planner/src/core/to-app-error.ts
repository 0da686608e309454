import { AppError } from '@appliance/common';
import type { Refusal } from './types.ts';

/** The refusal as the one error type the server maps to the error body. */
export const toAppError = (r: Refusal): AppError => new AppError(r.status, r.code, r.message, r.details);
