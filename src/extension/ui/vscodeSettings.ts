// The settings as VS Code holds them, through the one table of settings.ts: the only module
// that asks VS Code for a configuration.

import * as vscode from 'vscode';
import { read, readAsIs, type SettingName, type SettingValue } from './settings';

export function setting<N extends SettingName>(name: N): SettingValue<N> {
  return read(vscode.workspace.getConfiguration(), name);
}

/** Whether a configuration change touches the setting: the settings' table names it, so a name not in it does not compile. */
export function settingChanged(e: vscode.ConfigurationChangeEvent, name: SettingName): boolean {
  return e.affectsConfiguration(name);
}

/** For a setting whose own parser tells the user what is wrong with its value. */
export function settingAsIs(name: SettingName): unknown {
  return readAsIs(vscode.workspace.getConfiguration(), name);
}

/** Where the value comes from (user, workspace, folder), e.g. to write the user's list back. */
export function inspectSetting<T>(name: SettingName) {
  return vscode.workspace.getConfiguration().inspect<T>(name);
}

export function updateSetting(name: SettingName, value: unknown, target: vscode.ConfigurationTarget): Thenable<void> {
  return vscode.workspace.getConfiguration().update(name, value, target);
}
