import { render } from 'preact';
import { App } from './App';
import { interceptLinks } from './router';
import './styles.css';

const root = document.getElementById('app')!;
interceptLinks(document.body);
render(<App />, root);
