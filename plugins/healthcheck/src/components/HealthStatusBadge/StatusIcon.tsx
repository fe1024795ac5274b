import { useTheme } from '@material-ui/core/styles';
import { HealthPresentation } from './healthPresentation';

/**
 * The theme colour of a status (light and dark mode alike); the secondary
 * text colour for "No checks".
 */
export function useHealthColor(paletteKey: HealthPresentation['paletteKey']) {
  const theme = useTheme();
  return paletteKey
    ? theme.palette.status[paletteKey]
    : theme.palette.text.secondary;
}

/**
 * A status icon in its colour. Decorative: always put the status word next
 * to it.
 */
export function StatusIcon(props: {
  presentation: HealthPresentation;
  size?: number;
}) {
  const { presentation, size = 16 } = props;
  const color = useHealthColor(presentation.paletteKey);
  const { Icon } = presentation;
  return <Icon size={size} color={color} aria-hidden focusable={false} />;
}
