import type { Options } from 'tsup';
export declare function defineLibrary(options: { entry: string[] }): Options | Options[];
