/** The installer's refusals (stable codes), shared with the server's request checks. */
import { AppError } from '@appliance/common';

export const templateNotFound = (id: string) =>
  new AppError(
    404,
    'template_not_found',
    `No catalog source has a template ${id}; list the catalog to see the ids.`,
    {
      template: id,
    },
  );

export const invalidStackName = (name: string) =>
  new AppError(
    400,
    'invalid_stack_name',
    'A stack name is 1 to 63 characters: lower case letters, digits, "_" and "-", starting with a letter or digit.',
    { name },
  );

export const stackExists = (name: string) =>
  new AppError(409, 'stack_exists', `A stack named ${name} already exists; choose another name.`, {
    stack: name,
  });
