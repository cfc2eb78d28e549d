// Issue 13's property-based attack on sqlite (5,000 requests, seed 1300013): see describeFuzz in test/helpers/fuzz.ts.
import { describeFuzz } from '../helpers/fuzz';

describeFuzz('sqlite');
