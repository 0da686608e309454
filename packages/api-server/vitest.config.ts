import { packageConfig } from '../../vitest.shared.ts';

export default packageConfig({ setupFiles: ['./src/testing/light-globals.setup.ts'] });
