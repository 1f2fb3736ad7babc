// Bounded, seeded fuzzing of the login and consent forms and the other pages (see pages-suite.ts).
import { pagesFuzzSuite } from './pages-suite.js';

pagesFuzzSuite(false);
